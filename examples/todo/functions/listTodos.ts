import { query } from "@svc/functions";
import { z } from "zod";

/** The todos of one list (or all), newest first, one page at a time. */
export default query({
  args: {
    listId: z.string().optional(),
    cursor: z.string().optional(),
    limit: z.number().int().min(1).max(100).default(20),
  },
  handler: async (ctx, args) => {
    return ctx.db.query("Todo", {
      ...(args.listId !== undefined && { where: { listId: args.listId } }),
      orderBy: { field: "createdAt", direction: "desc" },
      limit: args.limit,
      ...(args.cursor !== undefined && { cursor: args.cursor }),
    });
  },
});
