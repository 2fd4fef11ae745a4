import { hook } from "@svc/functions";

/**
 * Runs when an account is deleted (`DELETE /api/auth/account`), with admin
 * rights inside the deletion's transaction: removes the user's messages and
 * conversations, which svc would otherwise leave behind.
 */
export default hook({
  on: { delete: { entity: "User" } },
  handler: async (ctx, { row }) => {
    for (const entity of ["Message", "Conversation"]) {
      for (;;) {
        const page = await ctx.db.query(entity, { where: { ownerId: row.id }, limit: 1000 });
        for (const owned of page.rows) await ctx.db.delete(entity, owned.id);
        if (page.nextCursor === null) break;
      }
    }
  },
});
