import { mutation } from "@svc/functions";
import { z } from "zod";
import { MAX_REPLY_CHARS } from "./_model.js";
import { nextCreatedAt } from "./_timeline.js";

/**
 * Stores the assistant's reply in one of the caller's conversations; `ask`
 * calls it once the model has answered. svc has no internal-only functions,
 * so a client could call this too, but only on its own conversations, which
 * nobody else can read.
 */
export default mutation({
  args: {
    conversationId: z.string(),
    content: z.string().trim().min(1).max(MAX_REPLY_CHARS),
  },
  handler: async (ctx, args) => {
    if ((await ctx.db.get("Conversation", args.conversationId)) === null) {
      return ctx.error("CONVERSATION_NOT_FOUND", "No conversation of yours has that id.", 404);
    }
    const message = await ctx.db.insert("Message", {
      conversationId: args.conversationId,
      role: "assistant",
      content: args.content,
      createdAt: await nextCreatedAt(ctx.db, args.conversationId),
    });
    return { messageId: message.id };
  },
});
