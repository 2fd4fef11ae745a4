/**
 * Every failure @svc/agent-docs reports, keyed by a stable code. Codes with a
 * `status` are wire errors of the agent API: their message is safe to send
 * to clients. Codes without one are local (broken content or options) and
 * stop the caller at load or setup time instead.
 */
export const agentDocsErrorCodes = {
  INVALID_QUERY: { status: 400, message: "A query parameter is missing or invalid." },
  DOC_NOT_FOUND: {
    status: 404,
    message: "No documentation page has this path; list or search the docs for valid paths.",
  },
  INVALID_HOST: {
    status: 400,
    message: "The Host header is not a valid host name, and no public URL is configured.",
  },
  NOT_FOUND: { status: 404, message: "The agent API has no such route." },
  METHOD_NOT_ALLOWED: { status: 405, message: "The agent API route does not allow this method." },
  RATE_LIMITED: { status: 429, message: "Too many requests; wait before retrying." },
  INTERNAL_ERROR: { status: 500, message: "Something went wrong on the server." },
  INVALID_CONTENT: { status: undefined, message: "A documentation file is malformed." },
  CONTENT_NOT_FOUND: { status: undefined, message: "The documentation content could not be read." },
  INVALID_OPTIONS: { status: undefined, message: "The agent API options are invalid." },
} as const satisfies Record<string, { status: number | undefined; message: string }>;

/** A stable @svc/agent-docs error code. */
export type AgentDocsErrorCode = keyof typeof agentDocsErrorCodes;

/** The wire codes: the ones an agent API client can receive. */
export type AgentDocsWireErrorCode = {
  [TCode in AgentDocsErrorCode]: (typeof agentDocsErrorCodes)[TCode]["status"] extends number
    ? TCode
    : never;
}[AgentDocsErrorCode];

/**
 * The single error class of @svc/agent-docs; tell cases apart by `code`.
 * `expose` is true for wire errors (the MCP server and the router send their
 * message as is); the underlying error, when there is one, is kept as `cause`.
 *
 * @example
 * try {
 *   await loadDocs({ contentDir: "./content" });
 * } catch (error) {
 *   if (error instanceof AgentDocsError && error.code === "INVALID_CONTENT") console.error(error.message);
 * }
 */
export class AgentDocsError extends Error {
  override readonly name = "AgentDocsError";
  readonly code: AgentDocsErrorCode;
  /** HTTP status for wire errors; undefined for local errors. */
  readonly status: number | undefined;
  /** True when the message is safe to send to a client (every wire error). */
  readonly expose: boolean;

  constructor(code: AgentDocsErrorCode, options: { message?: string; cause?: unknown } = {}) {
    super(options.message ?? agentDocsErrorCodes[code].message, { cause: options.cause });
    this.code = code;
    this.status = agentDocsErrorCodes[code].status;
    this.expose = this.status !== undefined;
  }
}

const wireCodes: ReadonlySet<string> = new Set(
  Object.entries(agentDocsErrorCodes).flatMap(([code, entry]) =>
    entry.status === undefined ? [] : [code],
  ),
);

/** True for the codes an agent API client can receive (those with a status). */
export function isWireErrorCode(code: string): code is AgentDocsWireErrorCode {
  return wireCodes.has(code);
}

/** The JSON body of every agent API error response. */
export interface AgentErrorEnvelope {
  error: { code: AgentDocsWireErrorCode; message: string };
}

/**
 * Maps any thrown value to an HTTP status and the error envelope. Exposed
 * errors keep their code and message; anything else becomes a generic
 * `INTERNAL_ERROR` (the caller logs the original).
 */
export function toAgentErrorResponse(error: unknown): {
  status: number;
  body: AgentErrorEnvelope;
  internal: boolean;
} {
  if (
    error instanceof AgentDocsError &&
    error.status !== undefined &&
    isWireErrorCode(error.code)
  ) {
    return {
      status: error.status,
      body: { error: { code: error.code, message: error.message } },
      internal: false,
    };
  }
  return {
    status: 500,
    body: {
      error: { code: "INTERNAL_ERROR", message: agentDocsErrorCodes.INTERNAL_ERROR.message },
    },
    internal: true,
  };
}

const MAX_ECHO = 120;

/** Caller input fit to quote in a message: JSON-quoted and cut to a bounded length. */
export function quoteForMessage(value: string): string {
  const cut = value.length > MAX_ECHO ? `${value.slice(0, MAX_ECHO)}…` : value;
  return JSON.stringify(cut);
}
