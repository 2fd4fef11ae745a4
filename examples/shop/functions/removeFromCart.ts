import { mutation } from "@svc/functions";
import { z } from "zod";

/** Takes one line out of the caller's cart. */
export default mutation({
  args: { id: z.string() },
  handler: async (ctx, args) => {
    if ((await ctx.db.get("CartItem", args.id)) === null) {
      return ctx.error("CART_ITEM_NOT_FOUND", "No cart line with that id.", 404);
    }
    await ctx.db.delete("CartItem", args.id);
    return { id: args.id, removed: true };
  },
});
