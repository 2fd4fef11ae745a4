import { describe, expect, it } from "vitest";
import { summarizeFunction } from "./function-summary.js";

describe("summarizeFunction", () => {
  it.each([
    ["export default query({ handler: (ctx) => ctx.db.query('Note') });", "query"],
    ["export default mutation({ handler: () => 1 });", "mutation"],
    ["export default action({ handler: (ctx) => ctx.runQuery('x', {}) });", "action"],
    // A hook's body queries: it is still a hook (the first call is not its kind).
    ["export default hook({ on: {}, handler: (ctx) => ctx.db.query('User') });", "hook"],
    ["const q = query({ handler: () => 1 });\nexport default q;", "query"],
    ["export default { type: 'query', handler() {} };", undefined],
  ])("reads the kind of %j", (source, type) => {
    expect(summarizeFunction(source).type).toBe(type);
  });

  it.each([
    ["export default query({ handler: () => 1 });", true],
    ["export default query({ args: {}, handler: () => 1 });", true],
    [
      "export default query({\n  args: {\n    cursor: z.string().optional(),\n    limit: z.number().int().min(1).max(100).default(20),\n  },\n  handler,\n});",
      true,
    ],
    [
      "export default query({\n  args: {\n    channelId: z.string(),\n    cursor: z.string().optional(),\n  },\n  handler,\n});",
      false,
    ],
    [
      "export default query({\n  args: {\n    name: z\n      .string()\n      .trim(),\n    note: z.string().optional(),\n  },\n  handler,\n});",
      false,
    ],
    ["export default query({ args: z.object({ id: z.string() }), handler });", false],
    ["export default query({ args: z.object({ id: z.string().optional() }), handler });", true],
    ["export default query({ args: schema, handler });", false],
  ])("tells whether %j takes {}", (source, takesEmptyArgs) => {
    expect(summarizeFunction(source).takesEmptyArgs).toBe(takesEmptyArgs);
  });
});
