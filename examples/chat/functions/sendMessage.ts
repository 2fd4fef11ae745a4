import { mutation } from "@svc/functions";
import { z } from "zod";
import { MAX_MESSAGE_LENGTH } from "./_limits.js";

/** Posts a message to a channel as the caller (the store stamps `authorId`). */
export default mutation({
  args: {
    channelId: z.string(),
    text: z.string().trim().min(1).max(MAX_MESSAGE_LENGTH),
  },
  handler: async (ctx, args) => {
    if ((await ctx.db.get("Channel", args.channelId)) === null) {
      ctx.error("CHANNEL_NOT_FOUND", "No channel with that id.", 404);
    }
    const message = await ctx.db.insert("Message", { channelId: args.channelId, text: args.text });
    return { id: message.id, createdAt: message.createdAt as string };
  },
});
