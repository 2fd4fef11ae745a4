import { hook } from "@svc/functions";

/**
 * Settles an invitation when the invited user deletes their own
 * `InvitationReply` (what `acceptInvitation` and `declineInvitation` do).
 * A before-delete hook runs inside the deleting transaction with the admin
 * token's rights, so it may add the membership, which no user may write
 * for themselves, and remove the invitation. It trusts nothing from the
 * reply but its invitation id and the caller: the invitation must be
 * addressed to the caller's email, and that email must be verified, since
 * anyone may register an unverified password account for any address. Not
 * callable over HTTP.
 */
export default hook({
  on: { delete: { entity: "InvitationReply" } },
  handler: async (ctx, { row }) => {
    const userId = String(row.ownerId);
    // Only the owner's own delete answers; the admin token may clear stray replies.
    if (ctx.auth.userId !== userId) return;
    const invitationId = String(row.invitationId);
    const invitation = /^[0-9a-f]{40}$/.test(invitationId)
      ? await ctx.db.get("Invitation", invitationId)
      : null;
    const user = await ctx.db.get("User", userId);
    if (invitation === null || user === null || invitation.email !== user.email) {
      return ctx.error(
        "INVITATION_NOT_FOUND",
        "No invitation with that id is addressed to you.",
        404,
      );
    }
    if (typeof user.emailVerified !== "string") {
      return ctx.error(
        "EMAIL_NOT_VERIFIED",
        "Verify your email address to answer invitations sent to it.",
        403,
      );
    }
    if (row.accept === true) {
      const orgId = String(invitation.orgId);
      const already = await ctx.db.query("OrgMember", { where: { orgId, userId }, limit: 1 });
      if (already.rows.length === 0) {
        await ctx.db.insert("OrgMember", {
          orgId,
          userId,
          role: invitation.role,
          email: invitation.email,
        });
      }
    }
    await ctx.db.delete("Invitation", invitation.id);
  },
});
