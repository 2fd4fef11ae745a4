import { mutation } from "@svc/functions";
import { z } from "zod";

/** Deletes one of the caller's conversations with all its messages, in one transaction. */
export default mutation({
  args: { id: z.string() },
  handler: async (ctx, args) => {
    if ((await ctx.db.get("Conversation", args.id)) === null) {
      return ctx.error("CONVERSATION_NOT_FOUND", "No conversation of yours has that id.", 404);
    }
    for (;;) {
      const page = await ctx.db.query("Message", {
        where: { conversationId: args.id },
        limit: 1000,
      });
      for (const message of page.rows) await ctx.db.delete("Message", message.id);
      if (page.nextCursor === null) break;
    }
    await ctx.db.delete("Conversation", args.id);
    return { deleted: true };
  },
});
