import { z } from "zod";
import { type CallToolContext, callTool } from "./call-tool.js";
import { McpServerError, nameForMessage } from "./errors.js";
import { formatIssues, type JsonObject } from "./json-rpc.js";
import {
  negotiateProtocolVersion,
  STATELESS_PROTOCOL_VERSION,
  supportedProtocolVersions,
} from "./protocol-versions.js";
import type { RegisteredTool } from "./tool.js";

/** Who the server is, as `initialize` and `server/discover` report it. */
export interface McpServerInfo {
  name: string;
  version: string;
  title?: string;
}

/** Everything a request needs, fixed when the server is created. */
export interface DispatchContext extends CallToolContext {
  serverInfo: McpServerInfo;
  instructions: string | undefined;
  tools: ReadonlyMap<string, RegisteredTool>;
  cacheTtlMs: number;
}

/** The request being answered. */
export interface DispatchRequest {
  method: string;
  params: JsonObject;
  /** The revision the request speaks (its header, or the default). */
  protocolVersion: string;
}

const capabilities = { tools: { listChanged: false } } as const;

const initializeParams = z.looseObject({ protocolVersion: z.string() });
const callToolParams = z.looseObject({
  name: z.string(),
  arguments: z.record(z.string(), z.unknown()).optional(),
});

function parseParams<T>(schema: z.ZodType<T>, params: JsonObject): T {
  const parsed = schema.safeParse(params);
  if (parsed.success) return parsed.data;
  throw new McpServerError("INVALID_PARAMS", {
    message: `Invalid params: ${formatIssues(parsed.error)}`,
  });
}

function initialize(context: DispatchContext, params: JsonObject): JsonObject {
  const { protocolVersion } = parseParams(initializeParams, params);
  return {
    protocolVersion: negotiateProtocolVersion(protocolVersion),
    capabilities,
    serverInfo: context.serverInfo,
    ...(context.instructions === undefined ? {} : { instructions: context.instructions }),
  };
}

function discover(context: DispatchContext): JsonObject {
  return {
    resultType: "complete",
    supportedVersions: [...supportedProtocolVersions],
    capabilities,
    ...(context.instructions === undefined ? {} : { instructions: context.instructions }),
    _meta: { "io.modelcontextprotocol/serverInfo": context.serverInfo },
    ttlMs: context.cacheTtlMs,
    cacheScope: "public",
  };
}

function listTools(context: DispatchContext, stateless: boolean): JsonObject {
  const tools = [...context.tools.values()].map((registered) => registered.descriptor);
  return stateless ? { tools, ttlMs: context.cacheTtlMs, cacheScope: "public" } : { tools };
}

async function runTool(context: DispatchContext, params: JsonObject): Promise<JsonObject> {
  const { name, arguments: args } = parseParams(callToolParams, params);
  const registered = context.tools.get(name);
  if (registered === undefined) {
    throw new McpServerError("UNKNOWN_TOOL", {
      message: `Unknown tool: ${nameForMessage(name)}.`,
    });
  }
  const result = await callTool(registered, args ?? {}, context);
  return { ...result };
}

async function answer(context: DispatchContext, request: DispatchRequest): Promise<JsonObject> {
  const stateless = request.protocolVersion === STATELESS_PROTOCOL_VERSION;
  switch (request.method) {
    case "initialize":
      return initialize(context, request.params);
    case "server/discover":
      return discover(context);
    case "ping":
      return {};
    case "tools/list":
      return listTools(context, stateless);
    case "tools/call":
      return runTool(context, request.params);
    default:
      throw new McpServerError("METHOD_NOT_FOUND", {
        message: `Method not found: ${nameForMessage(request.method)}.`,
      });
  }
}

/**
 * Answer one JSON-RPC request with its `result`, or throw the
 * `McpServerError` to send as its `error`. Requests made under the stateless
 * revision (`MCP-Protocol-Version: 2026-07-28`) get `resultType: "complete"`
 * on every result, as that revision requires.
 */
export async function dispatchRequest(
  context: DispatchContext,
  request: DispatchRequest,
): Promise<JsonObject> {
  const result = await answer(context, request);
  return request.protocolVersion === STATELESS_PROTOCOL_VERSION
    ? { resultType: "complete", ...result }
    : result;
}
