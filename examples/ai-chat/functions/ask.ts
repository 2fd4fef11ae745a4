import { action } from "@svc/functions";
import { z } from "zod";
import { askModel, type ChatTurn, ModelError, readModelConfig } from "./_model.js";

/**
 * Sends a message and stores the model's reply. Three steps, each its own
 * transaction: store the user's message (`addUserMessage`), call the model
 * with the conversation's history, store the reply (`storeReply`). When the
 * model fails or times out, the user's message stays and no assistant
 * message is written; the caller gets `MODEL_FAILED` (502) or
 * `MODEL_TIMEOUT` (504). Without a configured model nothing is written at
 * all: `MODEL_NOT_CONFIGURED` (501).
 */
export default action({
  args: {
    conversationId: z.string().optional(),
    content: z.string().trim().min(1).max(4000),
  },
  handler: async (ctx, args) => {
    try {
      const config = readModelConfig();
      const asked = (await ctx.runMutation("addUserMessage", args)) as {
        conversationId: string;
        messageId: string;
        history: ChatTurn[];
      };
      const reply = await askModel(config, asked.history);
      const stored = (await ctx.runMutation("storeReply", {
        conversationId: asked.conversationId,
        content: reply,
      })) as { messageId: string };
      return {
        conversationId: asked.conversationId,
        userMessageId: asked.messageId,
        assistantMessageId: stored.messageId,
        reply,
      };
    } catch (error) {
      if (error instanceof ModelError) return ctx.error(error.code, error.message, error.status);
      throw error;
    }
  },
});
