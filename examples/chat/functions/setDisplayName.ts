import { mutation } from "@svc/functions";
import { z } from "zod";
import { MAX_DISPLAY_NAME_LENGTH } from "./_limits.js";

/** Sets the name others see on the caller's messages and in the online list. */
export default mutation({
  args: { displayName: z.string().trim().min(1).max(MAX_DISPLAY_NAME_LENGTH) },
  handler: async (ctx, args) => {
    const userId = ctx.auth.userId;
    if (userId === null) return ctx.error("AUTH_REQUIRED", "Sign in first.", 401);
    const existing = await ctx.db.query("Profile", { where: { userId }, limit: 1 });
    const profile = existing.rows[0];
    const saved =
      profile === undefined
        ? await ctx.db.insert("Profile", { displayName: args.displayName })
        : await ctx.db.update("Profile", profile.id, { displayName: args.displayName });
    return { id: saved.id, displayName: args.displayName };
  },
});
