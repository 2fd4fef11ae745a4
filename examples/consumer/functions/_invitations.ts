import type { MutationContext } from "@svc/functions";

/**
 * Answers an invitation addressed to the caller: files an `InvitationReply`
 * and deletes it in the same transaction, which runs the hook in
 * `answerInvitation.ts` (the only way in for an invitee). Answers the
 * invitation's organization and role as the caller saw them.
 */
export async function answerInvitation(
  ctx: MutationContext,
  invitationId: string,
  accept: boolean,
): Promise<{ orgId: string; role: string }> {
  // The Invitation read policy shows the caller only invitations to their address.
  const invitation = /^[0-9a-f]{40}$/.test(invitationId)
    ? await ctx.db.get("Invitation", invitationId)
    : null;
  if (invitation === null) {
    return ctx.error(
      "INVITATION_NOT_FOUND",
      "No invitation with that id is addressed to you.",
      404,
    );
  }
  const reply = await ctx.db.insert("InvitationReply", { invitationId, accept });
  await ctx.db.delete("InvitationReply", reply.id);
  return { orgId: String(invitation.orgId), role: String(invitation.role) };
}
