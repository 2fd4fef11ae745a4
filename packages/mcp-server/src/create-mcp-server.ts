import type { McpToolCallEvent } from "./call-tool.js";
import { checkTransport, type TransportPolicy, tooLarge } from "./check-transport.js";
import { type DispatchContext, dispatchRequest, type McpServerInfo } from "./dispatch.js";
import { McpServerError } from "./errors.js";
import { type McpHttpHeaders, normalizeOrigin } from "./http-headers.js";
import {
  acceptedResponse,
  errorResponse,
  type McpHttpResponse,
  resultResponse,
} from "./http-response.js";
import { classifyMessage } from "./json-rpc.js";
import { readJson } from "./read-json.js";
import { type McpTool, type McpToolDescriptor, registerTools } from "./tool.js";

/** Options of {@link createMcpServer}. */
export interface McpServerOptions {
  /** Server name reported in `serverInfo`, e.g. `"svc-docs"`. */
  name: string;
  /** Server version reported in `serverInfo`, e.g. `"1.0.0"`. */
  version: string;
  /** Human-readable server name reported in `serverInfo`. */
  title?: string;
  /** Hints for the model on how to use the tools, sent by `initialize` and `server/discover`. */
  instructions?: string;
  /** The tool registry; names must be unique. Plain objects of the {@link McpTool} shape. */
  tools: readonly McpTool[];
  /**
   * Browser origins allowed to call the server (`scheme://host[:port]`).
   * A request whose `Origin` header is present and not listed gets 403;
   * requests without `Origin` (non-browser clients) are not affected.
   * `["*"]` trusts every origin. Default: none.
   */
  trustedOrigins?: readonly string[];
  /** Largest accepted request body in bytes; larger ones get 413. Default 1 MiB (1_048_576). */
  maxBodyBytes?: number;
  /** Deepest accepted nesting of arrays and objects in a message. Default 64. */
  maxJsonDepth?: number;
  /** `ttlMs` sent with cacheable results (`server/discover`, stateless `tools/list`). Default 3_600_000 (1 hour). */
  cacheTtlMs?: number;
  /** Clock in milliseconds used to time tool calls. Default `performance.now`. */
  now?: () => number;
  /** Observer told about every call of a registered tool (log handler errors here). Must not throw. */
  onToolCall?: (event: McpToolCallEvent) => void;
}

/** One HTTP request as the core sees it. */
export interface McpHttpRequest {
  /** HTTP method; only POST carries messages. */
  method: string;
  /** Request headers (any case). */
  headers: McpHttpHeaders;
  /** Raw request body: text, or UTF-8 bytes. Absent for bodiless requests. */
  body?: string | Uint8Array;
}

/** A stateless MCP server: one `handle` call per HTTP request, nothing kept between them. */
export interface McpServer {
  /** Answer one HTTP request on the MCP endpoint. Never rejects. */
  handle(request: McpHttpRequest): Promise<McpHttpResponse>;
  /** The tools as `tools/list` reports them. */
  readonly tools: readonly McpToolDescriptor[];
  /** The effective body limit, so adapters can stop reading early. */
  readonly maxBodyBytes: number;
}

const DEFAULT_MAX_BODY_BYTES = 1_048_576;
const DEFAULT_MAX_JSON_DEPTH = 64;
const DEFAULT_CACHE_TTL_MS = 3_600_000;

function positiveInteger(value: number | undefined, fallback: number, option: string): number {
  if (value === undefined) return fallback;
  if (Number.isSafeInteger(value) && value > 0) return value;
  throw new McpServerError("INVALID_OPTIONS", { message: `${option} must be a positive integer.` });
}

function trustedOriginSet(origins: readonly string[] | undefined): ReadonlySet<string> | "any" {
  if (origins?.includes("*")) return "any";
  const set = new Set<string>();
  for (const origin of origins ?? []) {
    const normalized = normalizeOrigin(origin);
    if (normalized === undefined) {
      throw new McpServerError("INVALID_OPTIONS", {
        message: `trustedOrigins has an entry that is not an origin: ${JSON.stringify(origin)}.`,
      });
    }
    set.add(normalized);
  }
  return set;
}

function requiredText(value: unknown, option: string): string {
  if (typeof value === "string" && value.trim() !== "") return value;
  throw new McpServerError("INVALID_OPTIONS", { message: `${option} must be a non-empty string.` });
}

/**
 * Create a stateless MCP server over Streamable HTTP for a tool registry.
 * Tools are checked and their JSON Schemas generated here, so a bad registry
 * fails at startup (`INVALID_TOOL`, `DUPLICATE_TOOL`, `INVALID_OPTIONS`).
 *
 * @example
 * const server = createMcpServer({ name: "docs", version: "1.0.0", tools: [searchTool] });
 * const response = await server.handle({
 *   method: "POST",
 *   headers: { "content-type": "application/json" },
 *   body: '{"jsonrpc":"2.0","id":1,"method":"tools/list"}',
 * });
 * // response.status === 200; JSON.parse(response.body ?? "").result.tools
 */
export function createMcpServer(options: McpServerOptions): McpServer {
  const serverInfo: McpServerInfo = {
    name: requiredText(options.name, "name"),
    version: requiredText(options.version, "version"),
    ...(options.title === undefined ? {} : { title: options.title }),
  };
  const tools = registerTools(options.tools);
  const policy: TransportPolicy = {
    trustedOrigins: trustedOriginSet(options.trustedOrigins),
    maxBodyBytes: positiveInteger(options.maxBodyBytes, DEFAULT_MAX_BODY_BYTES, "maxBodyBytes"),
  };
  const maxDepth = positiveInteger(options.maxJsonDepth, DEFAULT_MAX_JSON_DEPTH, "maxJsonDepth");
  const context: DispatchContext = {
    serverInfo,
    instructions: options.instructions,
    tools,
    cacheTtlMs: positiveInteger(options.cacheTtlMs, DEFAULT_CACHE_TTL_MS, "cacheTtlMs"),
    now: options.now ?? (() => performance.now()),
    onToolCall: options.onToolCall,
  };

  async function handle(request: McpHttpRequest): Promise<McpHttpResponse> {
    try {
      return await answer(request);
    } catch (error) {
      return errorResponse(new McpServerError("INTERNAL_ERROR", { cause: error }));
    }
  }

  async function answer(request: McpHttpRequest): Promise<McpHttpResponse> {
    const transport = checkTransport(request, policy);
    if (!transport.ok) return errorResponse(transport.error);

    const json = readJson(request.body, { maxBytes: policy.maxBodyBytes, maxDepth });
    if (!json.ok) {
      if (json.reason === "too-large") return errorResponse(tooLarge(policy.maxBodyBytes));
      if (json.reason === "malformed") return errorResponse(new McpServerError("PARSE_ERROR"));
      return errorResponse(
        new McpServerError("INVALID_REQUEST", {
          message: `The message nests deeper than ${maxDepth} levels.`,
        }),
      );
    }

    const message = classifyMessage(json.value);
    switch (message.kind) {
      case "notification":
      case "response":
        return acceptedResponse();
      case "invalid":
        return errorResponse(
          new McpServerError("INVALID_REQUEST", { message: message.reason }),
          message.id,
        );
      case "request":
        try {
          const result = await dispatchRequest(context, {
            method: message.method,
            params: message.params,
            protocolVersion: transport.protocolVersion,
          });
          return resultResponse(message.id, result);
        } catch (error) {
          const wire =
            error instanceof McpServerError && error.expose
              ? error
              : new McpServerError("INTERNAL_ERROR", { cause: error });
          return errorResponse(wire, message.id);
        }
    }
  }

  return {
    handle,
    tools: [...tools.values()].map((registered) => registered.descriptor),
    maxBodyBytes: policy.maxBodyBytes,
  };
}
