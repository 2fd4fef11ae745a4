import { mutation } from "@svc/functions";
import { z } from "zod";
import { requireUserId } from "./_caller.js";

/**
 * Creates the caller's profile on the first save and updates it afterwards:
 * one profile per user (a unique index on the owner), edited by its owner
 * only (the policy), so this never touches anyone else's row.
 */
export default mutation({
  args: {
    displayName: z.string().trim().min(1).max(80),
    bio: z.string().trim().max(1000).optional(),
  },
  handler: async (ctx, args) => {
    const ownerId = requireUserId(ctx);
    const fields = { displayName: args.displayName, bio: args.bio || null };
    const existing = await ctx.db.query("Profile", { where: { ownerId }, limit: 1 });
    const current = existing.rows[0];
    const saved =
      current === undefined
        ? await ctx.db.insert("Profile", fields)
        : await ctx.db.update("Profile", current.id, {
            ...fields,
            updatedAt: new Date().toISOString(),
          });
    return { id: saved.id, displayName: args.displayName, bio: fields.bio, created: !current };
  },
});
