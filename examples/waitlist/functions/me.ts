import { query } from "@svc/functions";
import { isWaitlistAdmin } from "./_admins.js";
import { toEntryView } from "./_entries.js";

/** The caller's waitlist entry (null before joining) and whether they may use the admin view. */
export default query({
  handler: async (ctx) => {
    const entry =
      ctx.auth.userId === null
        ? undefined
        : (await ctx.db.query("WaitlistEntry", { where: { ownerId: ctx.auth.userId }, limit: 1 }))
            .rows[0];
    return {
      entry: entry === undefined ? null : toEntryView(entry),
      isAdmin: await isWaitlistAdmin(ctx),
    };
  },
});
