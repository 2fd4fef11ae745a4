/** The wire errors the HTTP layer itself raises (the packages bring their own). */
export const serverErrorCodes = {
  ROUTE_NOT_FOUND: { status: 404, message: "No such route." },
  NOT_FOUND: { status: 404, message: "No such record." },
  INVALID_JSON: { status: 400, message: "The request body is not valid JSON." },
  INVALID_PATH: { status: 400, message: "The request path is not validly percent-encoded." },
  BAD_REQUEST: { status: 400, message: "The request is malformed." },
  INVALID_REQUEST_TARGET: {
    status: 400,
    message:
      "The request target must be a path such as /api/fn/name, or an http(s) URL of this host.",
  },
  HEADERS_TOO_LARGE: { status: 431, message: "The request line and headers are too large." },
  REQUEST_TIMEOUT: { status: 408, message: "The request took too long to arrive." },
  PAYLOAD_TOO_LARGE: { status: 413, message: "The request body is too large." },
  INVALID_TOKEN: { status: 401, message: "The bearer token is not valid." },
  ADMIN_REQUIRED: { status: 403, message: "This endpoint needs the admin token." },
  INVALID_BATCH: { status: 400, message: "The batch request is malformed." },
  INVALID_QUERY: { status: 400, message: "The query string is malformed." },
  INVALID_IDEMPOTENCY_KEY: {
    status: 400,
    message: "The Idempotency-Key header must be 1 to 255 printable ASCII characters.",
  },
  IDEMPOTENCY_KEY_REUSED: {
    status: 409,
    message: "This Idempotency-Key was already used for a different request.",
  },
  IDEMPOTENCY_KEY_IN_PROGRESS: {
    status: 409,
    message: "A request with this Idempotency-Key is still running.",
  },
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

// Errors become HTTP in one place for every package: `toErrorResponse` in
// @svc/schema. Re-exported so the server's modules import it from here.
export { type ErrorBody, type ErrorResponse, toErrorResponse } from "@svc/schema";
