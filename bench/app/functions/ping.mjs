// A trivial query: no database work, only the function pipeline.
export default {
  type: "query",
  handler: async () => ({ pong: true }),
};
