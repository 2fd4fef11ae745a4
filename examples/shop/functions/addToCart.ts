import { mutation } from "@svc/functions";
import { z } from "zod";
import { MAX_CART_LINES, MAX_QUANTITY } from "./_limits.js";

/**
 * Puts `quantity` of a product in the caller's cart, adding to the line
 * already there. Refuses more than the shop has in stock right now; the
 * stock is checked again, for good, at checkout.
 */
export default mutation({
  args: {
    productId: z.string(),
    quantity: z.number().int().min(1).max(MAX_QUANTITY).default(1),
  },
  handler: async (ctx, args) => {
    // Inactive products are hidden by their read policy, so they look missing.
    const product = await ctx.db.get("Product", args.productId);
    if (product === null) return ctx.error("PRODUCT_NOT_FOUND", "No product with that id.", 404);
    const lines = await ctx.db.query("CartItem", {
      where: { ownerId: ctx.auth.userId, productId: product.id },
      limit: 1,
    });
    const line = lines.rows[0];
    const quantity = (line === undefined ? 0 : Number(line.quantity)) + args.quantity;
    if (quantity > MAX_QUANTITY) {
      return ctx.error("QUANTITY_TOO_LARGE", `A cart line holds at most ${MAX_QUANTITY}.`, 400);
    }
    if (quantity > Number(product.stock)) {
      return ctx.error("OUT_OF_STOCK", `Only ${product.stock} of "${product.name}" left.`, 409);
    }
    if (line !== undefined) {
      const updated = await ctx.db.update("CartItem", line.id, { quantity });
      return { id: updated.id, quantity };
    }
    const cart = await ctx.db.query("CartItem", { limit: MAX_CART_LINES });
    if (cart.rows.length >= MAX_CART_LINES) {
      return ctx.error("CART_FULL", `A cart holds at most ${MAX_CART_LINES} products.`, 400);
    }
    const inserted = await ctx.db.insert("CartItem", { productId: product.id, quantity });
    return { id: inserted.id, quantity };
  },
});
