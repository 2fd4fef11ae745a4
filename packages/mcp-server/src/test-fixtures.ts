import { z } from "zod";
import { createMcpServer, type McpServer, type McpServerOptions } from "./create-mcp-server.js";
import type { McpHttpHeaders } from "./http-headers.js";
import { defineMcpTool, type McpTool } from "./tool.js";

/** A tool with defaults and a custom text rendering. */
export const searchTool = defineMcpTool({
  name: "search_things",
  title: "Search things",
  description: "Finds things by keyword.",
  inputSchema: z.object({
    q: z.string().min(1),
    limit: z.number().int().min(1).max(50).default(10),
  }),
  outputSchema: z.object({
    query: z.string(),
    count: z.number().int(),
    results: z.array(z.object({ title: z.string(), path: z.string() })),
  }),
  handler: ({ q, limit }) => {
    const results = [
      { title: `About ${q}`, path: `guide/${q}` },
      { title: `More ${q}`, path: `guide/more-${q}` },
    ].slice(0, limit);
    return { query: q, count: results.length, results };
  },
  toText: (output) => output.results.map((result) => `- ${result.title}`).join("\n"),
});

/** An async tool without `toText` and without a title. */
export const echoTool = defineMcpTool({
  name: "echo",
  description: "Returns its input.",
  inputSchema: z.object({ text: z.string() }),
  outputSchema: z.object({ text: z.string(), length: z.number() }),
  handler: async ({ text }) => ({ text, length: text.length }),
});

/** Throws an error whose message is meant for the client. */
export const exposedFailureTool = defineMcpTool({
  name: "fail_exposed",
  description: "Always fails with a safe message.",
  inputSchema: z.object({}),
  outputSchema: z.object({}),
  handler: () => {
    throw Object.assign(new Error("No page at that path."), { expose: true });
  },
});

/** Throws an internal error whose message must not leak. */
export const internalFailureTool = defineMcpTool({
  name: "fail_internal",
  description: "Always fails with a secret message.",
  inputSchema: z.object({}),
  outputSchema: z.object({}),
  handler: () => {
    throw new Error("connect ECONNREFUSED 10.0.0.7:5432 password=hunter2");
  },
});

/** Returns an output that does not match its output schema. */
export const badOutputTool: McpTool = {
  name: "bad_output",
  description: "Returns the wrong shape.",
  inputSchema: z.object({}),
  outputSchema: z.object({ n: z.number() }),
  handler: () => ({ n: "not a number" }),
};

/** Every sample tool. */
export const sampleTools: readonly McpTool[] = [
  searchTool,
  echoTool,
  exposedFailureTool,
  internalFailureTool,
  badOutputTool,
];

/** A server over the sample tools; `overrides` replace any option. */
export function createSampleServer(overrides: Partial<McpServerOptions> = {}): McpServer {
  return createMcpServer({
    name: "sample",
    version: "1.2.3",
    title: "Sample server",
    instructions: "Search first, then read.",
    tools: sampleTools,
    ...overrides,
  });
}

/** A decoded answer of `server.handle`. */
export interface PostResult {
  status: number;
  headers: Record<string, string>;
  /** Parsed JSON body; undefined when there is none. */
  json: unknown;
}

/** POST `body` (a value is sent as its JSON) with JSON content type and Accept by default. */
export async function post(
  server: McpServer,
  body: unknown,
  headers: McpHttpHeaders = {},
): Promise<PostResult> {
  const response = await server.handle({
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      ...headers,
    },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  return {
    status: response.status,
    headers: response.headers,
    json: response.body === undefined ? undefined : JSON.parse(response.body),
  };
}

/** A JSON-RPC request message. */
export function rpc(
  method: string,
  params?: Record<string, unknown>,
  id: string | number = 1,
): Record<string, unknown> {
  return { jsonrpc: "2.0", id, method, ...(params === undefined ? {} : { params }) };
}
