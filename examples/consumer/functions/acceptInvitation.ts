import { mutation } from "@svc/functions";
import { z } from "zod";
import { answerInvitation } from "./_invitations.js";

/**
 * Joins the organization of an invitation addressed to the caller's
 * verified email, with the invitation's role, and removes the invitation.
 * Fails with `INVITATION_NOT_FOUND` (404) or `EMAIL_NOT_VERIFIED` (403).
 */
export default mutation({
  args: { id: z.string() },
  handler: (ctx, args) => answerInvitation(ctx, args.id, true),
});
