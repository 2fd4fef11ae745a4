import { query } from "@svc/functions";
import { z } from "zod";
import { requireWaitlistAdmin } from "./_admins.js";
import { toEntryView } from "./_entries.js";

/** Admins only: the waitlist in order, optionally one status, one page at a time. */
export default query({
  args: {
    status: z.enum(["waiting", "invited"]).optional(),
    cursor: z.string().optional(),
    limit: z.number().int().min(1).max(100).default(25),
  },
  handler: async (ctx, args) => {
    await requireWaitlistAdmin(ctx);
    const page = await ctx.db.query("WaitlistEntry", {
      ...(args.status !== undefined && { where: { status: args.status } }),
      orderBy: { field: "position", direction: "asc" },
      limit: args.limit,
      ...(args.cursor !== undefined && { cursor: args.cursor }),
    });
    return { entries: page.rows.map(toEntryView), nextCursor: page.nextCursor };
  },
});
