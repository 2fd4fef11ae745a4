import { mutation } from "@svc/functions";
import { z } from "zod";
import { nextCreatedAt, recentHistory } from "./_timeline.js";

/** How many of the latest messages the model is shown. */
const HISTORY_LIMIT = 50;

/**
 * Stores the caller's message in one of their conversations (a new one,
 * titled after the message, when `conversationId` is left out) and answers
 * the history the model will read. `ask` calls it first; the Message policy
 * refuses conversations the caller does not own.
 */
export default mutation({
  args: {
    conversationId: z.string().optional(),
    content: z.string().trim().min(1).max(4000),
  },
  handler: async (ctx, args) => {
    let conversationId = args.conversationId;
    if (conversationId === undefined) {
      const title = args.content.length > 60 ? `${args.content.slice(0, 59)}…` : args.content;
      conversationId = (await ctx.db.insert("Conversation", { title })).id;
    } else if ((await ctx.db.get("Conversation", conversationId)) === null) {
      return ctx.error("CONVERSATION_NOT_FOUND", "No conversation of yours has that id.", 404);
    }
    const message = await ctx.db.insert("Message", {
      conversationId,
      role: "user",
      content: args.content,
      createdAt: await nextCreatedAt(ctx.db, conversationId),
    });
    return {
      conversationId,
      messageId: message.id,
      history: await recentHistory(ctx.db, conversationId, HISTORY_LIMIT),
    };
  },
});
