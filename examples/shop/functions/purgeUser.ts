import { hook } from "@svc/functions";

/**
 * Runs when an account is deleted (`DELETE /api/auth/account`), with admin
 * rights inside the deletion's transaction: empties the user's cart and
 * drops stray checkout requests (the checkout hook ignores deletes that
 * are not the owner's own, so this buys nothing). Orders and their lines
 * stay: they are the shop's sales records, and hold no more of the user
 * than their id.
 */
export default hook({
  on: { delete: { entity: "User" } },
  handler: async (ctx, { row }) => {
    for (const entity of ["CartItem", "CheckoutRequest"]) {
      for (;;) {
        const page = await ctx.db.query(entity, { where: { ownerId: row.id }, limit: 100 });
        for (const owned of page.rows) await ctx.db.delete(entity, owned.id);
        if (page.nextCursor === null) break;
      }
    }
  },
});
