import { action } from "@svc/functions";
import { z } from "zod";

/** An action: reads through a query and reports how many todos are open. */
export default action({
  args: { listId: z.string().optional() },
  handler: async (ctx, args) => {
    const page = (await ctx.runQuery("listTodos", { ...args, limit: 100 })) as {
      rows: { done: boolean }[];
    };
    const open = page.rows.filter((todo) => !todo.done).length;
    return { open, done: page.rows.length - open };
  },
});
