import { mutation } from "@svc/functions";
import { z } from "zod";
import { MAX_QUANTITY } from "./_limits.js";

/** Sets the quantity of one of the caller's cart lines. */
export default mutation({
  args: { id: z.string(), quantity: z.number().int().min(1).max(MAX_QUANTITY) },
  handler: async (ctx, args) => {
    // Another user's line is hidden by the read policy, so it looks missing.
    const line = await ctx.db.get("CartItem", args.id);
    if (line === null) return ctx.error("CART_ITEM_NOT_FOUND", "No cart line with that id.", 404);
    const product = await ctx.db.get("Product", String(line.productId));
    if (product !== null && args.quantity > Number(product.stock)) {
      return ctx.error("OUT_OF_STOCK", `Only ${product.stock} of "${product.name}" left.`, 409);
    }
    const updated = await ctx.db.update("CartItem", line.id, { quantity: args.quantity });
    return { id: updated.id, quantity: args.quantity };
  },
});
