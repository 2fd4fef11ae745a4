import { query } from "@svc/functions";
import { requireUserId } from "./_caller.js";

/**
 * The invitations addressed to the caller's email address, once that
 * address is verified (before, `emailVerified` is false and the list is
 * empty: an unverified address may belong to someone else).
 */
export default query({
  args: {},
  handler: async (ctx) => {
    const userId = requireUserId(ctx);
    const user = await ctx.db.get("User", userId);
    if (user === null || typeof user.email !== "string") {
      return { invitations: [], emailVerified: false };
    }
    if (typeof user.emailVerified !== "string") return { invitations: [], emailVerified: false };
    const page = await ctx.db.query("Invitation", {
      where: { email: user.email },
      orderBy: { field: "createdAt", direction: "desc" },
      limit: 100,
    });
    const invitations = page.rows.map((invitation) => ({
      id: invitation.id,
      orgId: invitation.orgId as string,
      orgName: invitation.orgName as string,
      role: invitation.role as string,
    }));
    return { invitations, emailVerified: true };
  },
});
