import { commonErrors, type DefinedErrorOptions, defineErrors, type ErrorTable } from "@svc/schema";
import { storeErrorCodes } from "@svc/store";

/** The wire errors the HTTP layer itself raises (the packages bring their own). */
export const serverErrorCodes = {
  ...commonErrors(
    "ROUTE_NOT_FOUND",
    "NOT_FOUND",
    "INVALID_JSON",
    "INVALID_PATH",
    "BAD_REQUEST",
    "PAYLOAD_TOO_LARGE",
    "INVALID_TOKEN",
    "ADMIN_REQUIRED",
    "INVALID_BATCH",
    "INVALID_QUERY",
    "LOOPBACK_ONLY",
    "NOT_READY",
    "INTERNAL_ERROR",
  ),
  INVALID_REQUEST_TARGET: {
    status: 400,
    message:
      "The request target must be a path such as /api/fn/name, or an http(s) URL of this host.",
  },
  HEADERS_TOO_LARGE: { status: 431, message: "The request line and headers are too large." },
  REQUEST_TIMEOUT: { status: 408, message: "The request took too long to arrive." },
  // The store's idempotent writes raise these; the server's table names them
  // too because its routes answer them, in the store's words.
  INVALID_IDEMPOTENCY_KEY: storeErrorCodes.INVALID_IDEMPOTENCY_KEY,
  IDEMPOTENCY_KEY_REUSED: storeErrorCodes.IDEMPOTENCY_KEY_REUSED,
  IDEMPOTENCY_KEY_IN_PROGRESS: storeErrorCodes.IDEMPOTENCY_KEY_IN_PROGRESS,
} as const satisfies ErrorTable;

export type ServerErrorCode = keyof typeof serverErrorCodes;

/**
 * An error of the HTTP layer, made by `defineErrors` from
 * `serverErrorCodes`; always safe to show the client. The second argument
 * is a message replacing the table's, or the options of `defineErrors`.
 */
export class ServerError extends defineErrors("ServerError", serverErrorCodes) {
  constructor(
    code: ServerErrorCode,
    message?: string | DefinedErrorOptions,
    options: { cause?: unknown } = {},
  ) {
    super(code, typeof message === "object" ? message : { ...options, message });
  }
}

// Errors become HTTP in one place for every package: `toErrorResponse` in
// @svc/schema. Re-exported so the server's modules import it from here.
export { type ErrorBody, type ErrorResponse, toErrorResponse } from "@svc/schema";
