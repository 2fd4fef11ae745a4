import { mutation } from "@svc/functions";
import { z } from "zod";

/**
 * Admin token only: makes the user with this email a waitlist admin, so
 * they can use the admin view after signing in. They must have signed in
 * once (that creates their `User` row). Granting twice changes nothing.
 */
export default mutation({
  args: { email: z.email().max(320) },
  handler: async (ctx, args) => {
    if (!ctx.auth.isAdmin) {
      return ctx.error("ADMIN_TOKEN_REQUIRED", "Only the admin token may grant admin rights.", 403);
    }
    // Sign-in stores addresses trimmed and lower-cased.
    const email = args.email.toLowerCase();
    const users = await ctx.db.query("User", { where: { email }, limit: 1 });
    const user = users.rows[0];
    if (user === undefined) {
      return ctx.error(
        "USER_NOT_FOUND",
        "No user has this email; they must sign in once first.",
        404,
      );
    }
    const existing = await ctx.db.query("Admin", { where: { userId: user.id }, limit: 1 });
    if (existing.rows.length === 0) await ctx.db.insert("Admin", { userId: user.id });
    return { userId: user.id, email };
  },
});
