import { ListToolsResultSchema } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, expectTypeOf, it } from "vitest";
import { z } from "zod";
import { McpServerError } from "./errors.js";
import {
  createSampleServer,
  echoTool,
  post,
  rpc,
  sampleTools,
  searchTool,
} from "./test-fixtures.js";
import { defineMcpTool, type McpTool, registerTools } from "./tool.js";

describe("tools/list", () => {
  const server = createSampleServer();

  it("lists every tool with JSON Schemas generated from its zod schemas", async () => {
    const { status, json } = await post(server, rpc("tools/list", {}));
    expect(status).toBe(200);
    const result = (json as { result: { tools: unknown[] } }).result;
    expect(result.tools).toHaveLength(sampleTools.length);
    expect(result.tools[0]).toEqual({
      name: "search_things",
      title: "Search things",
      description: "Finds things by keyword.",
      inputSchema: z.toJSONSchema(searchTool.inputSchema, { io: "input" }),
      outputSchema: z.toJSONSchema(searchTool.outputSchema, { io: "output" }),
    });
    expect(result.tools[0]).toMatchObject({
      inputSchema: {
        type: "object",
        properties: { q: { type: "string", minLength: 1 }, limit: { default: 10 } },
        required: ["q"],
      },
    });
    expect(result.tools[1]).not.toHaveProperty("title");
    expect(ListToolsResultSchema.safeParse(result).success).toBe(true);
  });

  it("ignores a pagination cursor and answers every tool at once", async () => {
    const { json } = await post(server, rpc("tools/list", { cursor: "abc" }));
    expect(json).not.toHaveProperty("result.nextCursor");
    expect(server.tools.map((tool) => tool.name)).toEqual(sampleTools.map((tool) => tool.name));
  });
});

describe("registerTools", () => {
  it("refuses two tools with one name", () => {
    expect(() => registerTools([echoTool, echoTool])).toThrowError(
      expect.objectContaining({ code: "DUPLICATE_TOOL" }),
    );
  });

  it.each(["", "has space", "x".repeat(129), "ünïcode"])("refuses the tool name %j", (name) => {
    expect(() => registerTools([{ ...echoTool, name }])).toThrowError(
      expect.objectContaining({ code: "INVALID_TOOL" }),
    );
  });

  it.each([
    ["a non-object input schema", { inputSchema: z.string() }],
    ["a non-object output schema", { outputSchema: z.array(z.string()) }],
    ["an output schema with a transform", { outputSchema: z.object({}).transform(() => ({})) }],
    ["an unrepresentable input schema", { inputSchema: z.object({ when: z.date() }) }],
  ])("refuses %s", (_label, change) => {
    const tool: McpTool = { ...echoTool, ...change };
    expect(() => registerTools([tool])).toThrowError(McpServerError);
    expect(() => registerTools([tool])).toThrowError(
      expect.objectContaining({ code: "INVALID_TOOL" }),
    );
  });

  it("keeps input-side defaults and transforms representable", () => {
    const registry = registerTools([
      {
        ...echoTool,
        inputSchema: z.object({ text: z.string().trim().default("") }),
      },
    ]);
    expect(registry.get("echo")?.descriptor.inputSchema).toMatchObject({
      type: "object",
      properties: { text: { type: "string", default: "" } },
    });
  });
});

describe("tool types", () => {
  it("infers handler types from the schemas", () => {
    const tool = defineMcpTool({
      name: "add",
      description: "Adds.",
      inputSchema: z.object({ a: z.number(), b: z.number().default(1) }),
      outputSchema: z.object({ sum: z.number() }),
      handler: (input) => ({ sum: input.a + input.b }),
    });
    expectTypeOf(tool).toEqualTypeOf<McpTool<{ a: number; b: number }, { sum: number }>>();
  });

  it("accepts plain objects of the structural shape in the registry", () => {
    const plain = {
      name: "plain",
      description: "Declared without importing this package.",
      inputSchema: z.object({ id: z.string() }),
      outputSchema: z.object({ id: z.string() }),
      handler: async (input: { id: string }) => ({ id: input.id }),
      toText: (output: { id: string }) => output.id,
    };
    expectTypeOf(plain).toExtend<McpTool>();
    expect(registerTools([plain]).has("plain")).toBe(true);
  });
});
