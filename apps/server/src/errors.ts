/** The wire errors the HTTP layer itself raises (the packages bring their own). */
export const serverErrorCodes = {
  ROUTE_NOT_FOUND: { status: 404, message: "No such route." },
  NOT_FOUND: { status: 404, message: "No such record." },
  INVALID_JSON: { status: 400, message: "The request body is not valid JSON." },
  INVALID_PATH: { status: 400, message: "The request path is not validly percent-encoded." },
  BAD_REQUEST: { status: 400, message: "The request is malformed." },
  PAYLOAD_TOO_LARGE: { status: 413, message: "The request body is too large." },
  INVALID_TOKEN: { status: 401, message: "The bearer token is not valid." },
  ADMIN_REQUIRED: { status: 403, message: "This endpoint needs the admin token." },
  INVALID_BATCH: { status: 400, message: "The batch request is malformed." },
  INVALID_QUERY: { status: 400, message: "The query string is malformed." },
  LOOPBACK_ONLY: { status: 403, message: "This endpoint answers loopback callers only." },
  NOT_READY: { status: 503, message: "The database is not reachable." },
  INTERNAL_ERROR: { status: 500, message: "Something went wrong on the server." },
} as const satisfies Record<string, { status: number; message: string }>;

export type ServerErrorCode = keyof typeof serverErrorCodes;

/** An error of the HTTP layer; always safe to show the client. */
export class ServerError extends Error {
  override readonly name = "ServerError";
  readonly code: ServerErrorCode;
  readonly status: number;
  readonly expose = true;

  constructor(code: ServerErrorCode, message?: string, options: { cause?: unknown } = {}) {
    super(message ?? serverErrorCodes[code].message, { cause: options.cause });
    this.code = code;
    this.status = serverErrorCodes[code].status;
  }
}

/** The JSON body of every error response. */
export interface ErrorEnvelope {
  error: { code: string; message: string };
}

/** An error some svc package marked as safe to send (`expose: true`). */
interface ExposedError {
  code: string;
  status: number;
  message: string;
}

function isExposed(error: unknown): error is ExposedError {
  if (!(error instanceof Error)) return false;
  const candidate = error as Error & { code?: unknown; status?: unknown; expose?: unknown };
  return (
    candidate.expose === true &&
    typeof candidate.code === "string" &&
    typeof candidate.status === "number" &&
    candidate.status >= 400 &&
    candidate.status <= 599
  );
}

/**
 * Maps any thrown value to a status and envelope. This is the only place
 * errors become HTTP: exposed errors keep their code, status and message;
 * everything else is a generic 500 (the caller logs the original).
 */
export function toErrorResponse(error: unknown): {
  status: number;
  body: ErrorEnvelope;
  internal: boolean;
} {
  if (isExposed(error)) {
    return {
      status: error.status,
      body: { error: { code: error.code, message: error.message } },
      internal: false,
    };
  }
  // Express and its parsers signal client mistakes with http-errors objects
  // (a numeric 4xx status but no svc code), e.g. a URIError for a path with
  // broken percent-encoding: still the client's fault, never a 500.
  const clientStatus = (error as { status?: unknown } | null)?.status;
  if (typeof clientStatus === "number" && clientStatus >= 400 && clientStatus < 500) {
    const code = error instanceof URIError ? "INVALID_PATH" : "BAD_REQUEST";
    return {
      status: 400,
      body: { error: { code, message: serverErrorCodes[code].message } },
      internal: false,
    };
  }
  const fallback = serverErrorCodes.INTERNAL_ERROR;
  return {
    status: fallback.status,
    body: { error: { code: "INTERNAL_ERROR", message: fallback.message } },
    internal: true,
  };
}
