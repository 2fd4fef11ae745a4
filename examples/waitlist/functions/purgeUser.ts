import { hook } from "@svc/functions";

/**
 * Runs when an account is deleted (`DELETE /api/auth/account`), with admin
 * rights inside the deletion's transaction: takes the person off the
 * waitlist (their entry holds their email), drops stray join requests and
 * their admin grant, so nothing of theirs stays behind. Positions of the
 * others do not move; a gap is left in the numbering.
 */
export default hook({
  on: { delete: { entity: "User" } },
  handler: async (ctx, { row }) => {
    for (const [entity, field] of [
      ["WaitlistEntry", "ownerId"],
      ["JoinRequest", "ownerId"],
      ["Admin", "userId"],
    ] as const) {
      for (;;) {
        const page = await ctx.db.query(entity, { where: { [field]: row.id }, limit: 100 });
        for (const owned of page.rows) await ctx.db.delete(entity, owned.id);
        if (page.nextCursor === null) break;
      }
    }
  },
});
