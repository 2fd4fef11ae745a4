export default {
  type: "mutation",
  handler: async (ctx, args) => {
    const item = await ctx.db.insert("Item", { title: args.title });
    return { id: item.id };
  },
};
