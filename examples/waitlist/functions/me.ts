import { query } from "@svc/functions";
import { isWaitlistAdmin } from "./_admins.js";
import { toEntryView } from "./_entries.js";

/**
 * The caller's address (and whether it is verified, which joining needs),
 * their waitlist entry (null before joining) and whether they may use the
 * admin view.
 */
export default query({
  handler: async (ctx) => {
    const userId = ctx.auth.userId;
    const user = userId === null ? null : await ctx.db.get("User", userId);
    const entry =
      userId === null
        ? undefined
        : (await ctx.db.query("WaitlistEntry", { where: { ownerId: userId }, limit: 1 })).rows[0];
    return {
      email: typeof user?.email === "string" ? user.email : null,
      emailVerified: typeof user?.emailVerified === "string",
      entry: entry === undefined ? null : toEntryView(entry),
      isAdmin: await isWaitlistAdmin(ctx),
    };
  },
});
