import { mutation } from "@svc/functions";
import { z } from "zod";
import { answerInvitation } from "./_invitations.js";

/** Declines an invitation addressed to the caller's verified email: it is removed. */
export default mutation({
  args: { id: z.string() },
  handler: async (ctx, args) => {
    const { orgId } = await answerInvitation(ctx, args.id, false);
    return { orgId, declined: true };
  },
});
