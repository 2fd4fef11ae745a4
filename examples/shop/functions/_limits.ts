/** Most of one product a cart line may hold (the CartItem policies say the same). */
export const MAX_QUANTITY = 99;

/** Most distinct products one cart may hold. */
export const MAX_CART_LINES = 50;
