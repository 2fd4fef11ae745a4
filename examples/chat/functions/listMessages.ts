import { query } from "@svc/functions";
import { z } from "zod";

/**
 * One page of a channel's messages, newest first; pass `nextCursor` back as
 * `cursor` for older ones. Used live (`useLiveQuery`): the page is sent
 * again whenever a message in it changes or a new one arrives.
 */
export default query({
  args: {
    channelId: z.string(),
    cursor: z.string().optional(),
    limit: z.number().int().min(1).max(100).default(50),
  },
  handler: (ctx, args) =>
    ctx.db.query("Message", {
      where: { channelId: args.channelId },
      orderBy: { field: "createdAt", direction: "desc" },
      limit: args.limit,
      ...(args.cursor !== undefined && { cursor: args.cursor }),
    }),
});
