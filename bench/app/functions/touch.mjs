// A trivial mutation: one small insert in its own transaction.
export default {
  type: "mutation",
  handler: async (ctx) => {
    const row = await ctx.db.insert("Touch", { note: "touched" });
    return { id: row.id };
  },
};
