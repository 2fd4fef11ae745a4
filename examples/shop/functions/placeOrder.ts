import { hook } from "@svc/functions";
import { type PricedLine, priceLine, readCart } from "./_checkout-lines.js";

/**
 * Places the order when a user deletes their own `CheckoutRequest` (what
 * the `checkout` mutation does). A before-delete hook runs inside the
 * deleting transaction with the admin token's rights, so it may take stock
 * and write `Order` rows, which no user may write directly; it trusts
 * nothing from the caller but who they are. Throwing rolls the whole
 * checkout back. Not callable over HTTP.
 */
export default hook({
  on: { delete: { entity: "CheckoutRequest" } },
  handler: async (ctx, { row }) => {
    const ownerId = String(row.ownerId);
    // Only the owner's own delete checks out; the admin token may clear stray requests.
    if (ctx.auth.userId !== ownerId) return;
    const cart = await readCart(ctx.db, ownerId);
    if (cart.length === 0) return ctx.error("CART_EMPTY", "The cart is empty.", 400);
    const now = new Date().toISOString();
    const lines: PricedLine[] = [];
    for (const line of cart) lines.push(await priceLine(ctx, line, now));

    const order = await ctx.db.insert("Order", {
      id: row.id,
      ownerId,
      status: "placed",
      totalCents: lines.reduce((sum, line) => sum + line.unitPriceCents * line.quantity, 0),
      itemCount: lines.reduce((sum, line) => sum + line.quantity, 0),
      createdAt: now,
    });
    for (const line of lines) {
      await ctx.db.update("Product", line.productId, { stock: line.stockLeft });
      await ctx.db.insert("OrderItem", {
        orderId: order.id,
        ownerId,
        productId: line.productId,
        productName: line.productName,
        quantity: line.quantity,
        unitPriceCents: line.unitPriceCents,
      });
      await ctx.db.delete("CartItem", line.cartItemId);
    }
  },
});
