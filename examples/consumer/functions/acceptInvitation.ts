import { mutation } from "@svc/functions";
import { z } from "zod";
import { requireUserId } from "./_caller.js";

/**
 * Joins the organization of an invitation addressed to the caller, then
 * removes the invitation. The OrgMember policy checks the address again, so
 * the entity API cannot be used to skip this.
 */
export default mutation({
  args: { id: z.string() },
  handler: async (ctx, args) => {
    const userId = requireUserId(ctx);
    const invitation = await ctx.db.get("Invitation", args.id);
    const user = await ctx.db.get("User", userId);
    if (invitation === null || user === null || invitation.email !== user.email) {
      return ctx.error(
        "INVITATION_NOT_FOUND",
        "No invitation with that id is addressed to you.",
        404,
      );
    }
    const orgId = invitation.orgId as string;
    const already = await ctx.db.query("OrgMember", { where: { orgId, userId }, limit: 1 });
    if (already.rows.length === 0) {
      await ctx.db.insert("OrgMember", {
        orgId,
        userId,
        role: invitation.role,
        email: invitation.email,
      });
    }
    await ctx.db.delete("Invitation", invitation.id);
    return { orgId, role: invitation.role as string };
  },
});
