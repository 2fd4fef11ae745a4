import { mutation } from "@svc/functions";
import { z } from "zod";

/** Creates a list and returns its id. */
export default mutation({
  args: { title: z.string().min(1).max(200) },
  handler: async (ctx, args) => {
    const list = await ctx.db.insert("List", { title: args.title });
    return { id: list.id };
  },
});
