/**
 * Every failure @svc/mcp-server reports, keyed by a stable code. Wire errors
 * carry the JSON-RPC error code (`rpcCode`) and the HTTP status they are sent
 * with; local errors (a bad tool or option, found when the server is created)
 * have neither and stop the caller instead.
 *
 * `-32000` is the implementation-defined server-error code the MCP SDKs use
 * for rejections made by the HTTP transport before any JSON-RPC processing.
 */
export const mcpErrorCodes = {
  PARSE_ERROR: { rpcCode: -32700, status: 400, message: "The request body is not valid JSON." },
  UNSUPPORTED_PROTOCOL_VERSION: {
    rpcCode: -32600,
    status: 400,
    message: "The MCP-Protocol-Version header names an unsupported protocol version.",
  },
  INVALID_REQUEST: {
    rpcCode: -32600,
    status: 200,
    message: "The message is not a valid JSON-RPC 2.0 request.",
  },
  METHOD_NOT_FOUND: { rpcCode: -32601, status: 200, message: "The method does not exist." },
  INVALID_PARAMS: { rpcCode: -32602, status: 200, message: "The params are invalid." },
  UNKNOWN_TOOL: { rpcCode: -32602, status: 200, message: "The tool does not exist." },
  INTERNAL_ERROR: { rpcCode: -32603, status: 200, message: "Internal error." },
  FORBIDDEN_ORIGIN: {
    rpcCode: -32000,
    status: 403,
    message: "The request's Origin is not trusted.",
  },
  PAYLOAD_TOO_LARGE: {
    rpcCode: -32000,
    status: 413,
    message: "The request body is too large.",
  },
  METHOD_NOT_ALLOWED: {
    rpcCode: -32000,
    status: 405,
    message: "Method not allowed; send JSON-RPC messages with POST.",
  },
  NOT_ACCEPTABLE: {
    rpcCode: -32000,
    status: 406,
    message: "The Accept header must allow application/json.",
  },
  UNSUPPORTED_MEDIA_TYPE: {
    rpcCode: -32000,
    status: 415,
    message: "The Content-Type must be application/json.",
  },
  INVALID_TOOL: { rpcCode: undefined, status: undefined, message: "A tool definition is invalid." },
  DUPLICATE_TOOL: {
    rpcCode: undefined,
    status: undefined,
    message: "Two tools have the same name.",
  },
  INVALID_OPTIONS: {
    rpcCode: undefined,
    status: undefined,
    message: "The MCP server options are invalid.",
  },
} as const satisfies Record<
  string,
  { rpcCode: number | undefined; status: number | undefined; message: string }
>;

/** A stable @svc/mcp-server error code. */
export type McpErrorCode = keyof typeof mcpErrorCodes;

/** The codes that are sent to clients (they have a JSON-RPC code and an HTTP status). */
export type McpWireErrorCode = {
  [TCode in McpErrorCode]: (typeof mcpErrorCodes)[TCode]["status"] extends number ? TCode : never;
}[McpErrorCode];

/**
 * The single error class of @svc/mcp-server; tell cases apart by `code`.
 * Messages never contain stack traces or a tool's internal error text; the
 * underlying error, when there is one, is kept as `cause`.
 *
 * @example
 * try {
 *   createMcpServer({ name: "docs", version: "1.0.0", tools: [toolA, toolA] });
 * } catch (error) {
 *   if (error instanceof McpServerError && error.code === "DUPLICATE_TOOL") console.error(error.message);
 * }
 */
export class McpServerError extends Error {
  override readonly name = "McpServerError";
  readonly code: McpErrorCode;
  /** JSON-RPC error code for wire errors; undefined for local errors. */
  readonly rpcCode: number | undefined;
  /** HTTP status the error is answered with; undefined for local errors. */
  readonly status: number | undefined;
  /** Optional JSON-RPC `error.data` sent with a wire error. */
  readonly data: Record<string, unknown> | undefined;
  /** True when the message is safe to send to a client (every wire error). */
  readonly expose: boolean;

  constructor(
    code: McpErrorCode,
    options: { message?: string; data?: Record<string, unknown>; cause?: unknown } = {},
  ) {
    super(options.message ?? mcpErrorCodes[code].message, { cause: options.cause });
    this.code = code;
    this.rpcCode = mcpErrorCodes[code].rpcCode;
    this.status = mcpErrorCodes[code].status;
    this.data = options.data;
    this.expose = this.status !== undefined;
  }
}

const PLAIN_NAME = /^[A-Za-z0-9_.-]{1,128}$/;

/**
 * A caller-supplied name (a method or tool), fit to quote in a message: the
 * name itself when it looks like an identifier, otherwise a placeholder, so
 * messages never echo arbitrary text.
 */
export function nameForMessage(name: unknown): string {
  return typeof name === "string" && PLAIN_NAME.test(name) ? name : "(an invalid name)";
}
