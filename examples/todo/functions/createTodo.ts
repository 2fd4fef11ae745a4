import { mutation } from "@svc/functions";
import { z } from "zod";

/**
 * Adds a todo owned by the caller (the store stamps `ownerId`). An admin
 * caller has no user id, so it passes `ownerId` itself.
 */
export default mutation({
  args: {
    title: z.string().min(1).max(500),
    listId: z.string().optional(),
    priority: z.enum(["low", "high"]).default("low"),
    ownerId: z.string().optional(),
  },
  handler: async (ctx, args) => {
    if (args.listId !== undefined && (await ctx.db.get("List", args.listId)) === null) {
      ctx.error("LIST_NOT_FOUND", "No list with that id.", 404);
    }
    const todo = await ctx.db.insert("Todo", {
      title: args.title,
      done: false,
      priority: args.priority,
      ...(args.listId !== undefined && { listId: args.listId }),
      ...(args.ownerId !== undefined && { ownerId: args.ownerId }),
    });
    return { id: todo.id };
  },
});
