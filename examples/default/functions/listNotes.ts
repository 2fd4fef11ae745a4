import { query } from "@svc/functions";
import { z } from "zod";

/** The caller's notes, newest first, one page at a time. */
export default query({
  args: {
    cursor: z.string().optional(),
    limit: z.number().int().min(1).max(100).default(20),
  },
  handler: async (ctx, args) => {
    return ctx.db.query("Note", {
      orderBy: { field: "createdAt", direction: "desc" },
      limit: args.limit,
      ...(args.cursor !== undefined && { cursor: args.cursor }),
    });
  },
});
