import { mutation } from "@svc/functions";
import { z } from "zod";

/**
 * Admin token only: makes the user with this email a waitlist admin, so
 * they can use the admin view after signing in. They must have signed in
 * once with a magic code (that creates their `User` row and proves the
 * address); an unverified account, which anyone could have registered with
 * a password, is refused. Granting twice changes nothing.
 */
export default mutation({
  // Trimmed and lower-cased first: the form sign-in stores addresses in.
  args: { email: z.string().trim().toLowerCase().max(320).pipe(z.email()) },
  handler: async (ctx, args) => {
    if (!ctx.auth.isAdmin) {
      return ctx.error("ADMIN_TOKEN_REQUIRED", "Only the admin token may grant admin rights.", 403);
    }
    const email = args.email;
    const users = await ctx.db.query("User", { where: { email }, limit: 1 });
    const user = users.rows[0];
    if (user === undefined) {
      return ctx.error(
        "USER_NOT_FOUND",
        "No user has this email; they must sign in once first.",
        404,
      );
    }
    if (typeof user.emailVerified !== "string") {
      return ctx.error(
        "EMAIL_NOT_VERIFIED",
        "This user has not verified their email; they must sign in with a code first.",
        409,
      );
    }
    const existing = await ctx.db.query("Admin", { where: { userId: user.id }, limit: 1 });
    if (existing.rows.length === 0) await ctx.db.insert("Admin", { userId: user.id });
    return { userId: user.id, email };
  },
});
