import { mutation } from "@svc/functions";

/**
 * Turns the caller's cart into an order, in this mutation's one
 * transaction: stock is checked and taken, the order and its lines are
 * written at today's prices, and the cart is emptied; any failure
 * (`CART_EMPTY`, `OUT_OF_STOCK`, `PRODUCT_UNAVAILABLE`) writes nothing.
 *
 * Orders and stock are closed to users by the policies, so the work is
 * done by the hook in `placeOrder.ts`, which runs with the admin's rights
 * when a `CheckoutRequest` is deleted. This mutation files a request and
 * deletes it at once; the order gets the request's id.
 */
export default mutation({
  handler: async (ctx) => {
    const request = await ctx.db.insert("CheckoutRequest", {});
    await ctx.db.delete("CheckoutRequest", request.id);
    const order = await ctx.db.get("Order", request.id);
    if (order === null) return ctx.error("CHECKOUT_FAILED", "The order was not written.", 500);
    return {
      orderId: order.id,
      totalCents: Number(order.totalCents),
      itemCount: Number(order.itemCount),
    };
  },
});
