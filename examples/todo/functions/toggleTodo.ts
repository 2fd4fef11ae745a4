import { mutation } from "@svc/functions";
import { z } from "zod";

/** Flips a todo's `done` flag and returns the new value. */
export default mutation({
  args: { id: z.string() },
  handler: async (ctx, args) => {
    const todo = await ctx.db.get("Todo", args.id);
    if (todo === null) return ctx.error("TODO_NOT_FOUND", "No todo with that id.", 404);
    const updated = await ctx.db.update("Todo", args.id, { done: !todo.done });
    return { id: updated.id, done: updated.done };
  },
});
