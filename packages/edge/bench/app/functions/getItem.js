export default {
  type: "query",
  handler: async (ctx, args) => {
    const item = await ctx.db.get("Item", args.id);
    return item === null ? null : { id: item.id, title: item.title };
  },
};
