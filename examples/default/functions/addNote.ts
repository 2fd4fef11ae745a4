import { mutation } from "@svc/functions";
import { z } from "zod";

/**
 * Adds a note owned by the caller (the store stamps `ownerId`). An admin
 * caller has no user id, so it passes `ownerId` itself.
 */
export default mutation({
  args: {
    text: z.string().min(1).max(2000),
    ownerId: z.string().optional(),
  },
  handler: async (ctx, args) => {
    const note = await ctx.db.insert("Note", {
      text: args.text,
      ...(args.ownerId !== undefined && { ownerId: args.ownerId }),
    });
    return { id: note.id };
  },
});
