import { CallToolResultSchema } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import type { McpToolCallEvent } from "./call-tool.js";
import { createSampleServer, post, rpc } from "./test-fixtures.js";

function createObservedServer() {
  const events: McpToolCallEvent[] = [];
  let clock = 1_000;
  const server = createSampleServer({
    now: () => {
      clock += 5;
      return clock;
    },
    onToolCall: (event) => events.push(event),
  });
  return { server, events };
}

async function call(name: string, args?: unknown) {
  const { server, events } = createObservedServer();
  const params = args === undefined ? { name } : { name, arguments: args };
  const response = await post(server, rpc("tools/call", params));
  return { ...response, events };
}

describe("tools/call", () => {
  it("answers structuredContent and the tool's text rendering", async () => {
    const { status, json, events } = await call("search_things", { q: "auth", limit: 1 });
    expect(status).toBe(200);
    const result = (json as { result: unknown }).result;
    expect(result).toEqual({
      content: [{ type: "text", text: "- About auth" }],
      structuredContent: {
        query: "auth",
        count: 1,
        results: [{ title: "About auth", path: "guide/auth" }],
      },
    });
    expect(CallToolResultSchema.safeParse(result).success).toBe(true);
    expect(events).toEqual([{ tool: "search_things", outcome: "success", durationMs: 5 }]);
  });

  it("applies input defaults and renders JSON text when the tool has no toText", async () => {
    const { json } = await call("echo", { text: "héllo" });
    expect(json).toMatchObject({
      result: {
        content: [{ type: "text", text: '{"text":"héllo","length":5}' }],
        structuredContent: { text: "héllo", length: 5 },
      },
    });
    expect(json).not.toHaveProperty("result.isError");
  });

  it("treats missing arguments as an empty object", async () => {
    const { json } = await call("search_things");
    expect(json).toMatchObject({ result: { isError: true } });
  });

  it.each([
    ["a missing required field", {}, "q"],
    ["a wrong type", { q: 5 }, "q"],
    ["a value out of range", { q: "x", limit: 500 }, "limit"],
  ])("answers %s as an isError result naming the field", async (_label, args, field) => {
    const { status, json, events } = await call("search_things", args);
    expect(status).toBe(200);
    const result = (json as { result: { content: Array<{ text: string }> } }).result;
    expect(result).toMatchObject({ isError: true, content: [{ type: "text" }] });
    expect(result.content[0]?.text).toMatch(/^Invalid arguments for tool search_things: /);
    expect(result.content[0]?.text).toContain(field);
    expect(result).not.toHaveProperty("structuredContent");
    expect(CallToolResultSchema.safeParse(result).success).toBe(true);
    expect(events[0]?.outcome).toBe("invalid-arguments");
  });

  it("shows the message of a thrown error marked expose: true", async () => {
    const { json, events } = await call("fail_exposed", {});
    expect(json).toMatchObject({
      result: { isError: true, content: [{ type: "text", text: "No page at that path." }] },
    });
    expect(events[0]).toMatchObject({ outcome: "tool-error", error: expect.any(Error) });
  });

  it("hides the message of any other thrown error but reports it to onToolCall", async () => {
    const { json, events } = await call("fail_internal", {});
    expect(json).toMatchObject({
      result: {
        isError: true,
        content: [{ type: "text", text: "The tool failed to complete the request." }],
      },
    });
    expect(JSON.stringify(json)).not.toContain("hunter2");
    expect(events[0]).toMatchObject({ tool: "fail_internal", outcome: "tool-error" });
    expect(String(events[0]?.error)).toContain("ECONNREFUSED");
  });

  it("answers an output that fails the output schema with -32603", async () => {
    const { status, json, events } = await call("bad_output", {});
    expect(status).toBe(200);
    expect(json).toMatchObject({
      id: 1,
      error: { code: -32603, message: "Tool bad_output produced an invalid result." },
    });
    expect(events[0]?.outcome).toBe("internal-error");
  });

  it("answers an unknown tool with -32602 and no isError result", async () => {
    const { json, events } = await call("nope", {});
    expect(json).toMatchObject({ error: { code: -32602, message: "Unknown tool: nope." } });
    expect(events).toEqual([]);
  });

  it("keeps answering when onToolCall throws", async () => {
    const server = createSampleServer({
      onToolCall: () => {
        throw new Error("observer broke");
      },
    });
    const { json } = await post(
      server,
      rpc("tools/call", { name: "echo", arguments: { text: "a" } }),
    );
    expect(json).toMatchObject({ result: { structuredContent: { text: "a", length: 1 } } });
  });
});
