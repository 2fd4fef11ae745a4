import { commonErrorCodes } from "./common-errors.js";
import { isStorageFull, STORAGE_FULL, STORAGE_FULL_RETRY_AFTER_SECS } from "./storage-full.js";

/**
 * The contract every svc error sent to a client keeps, whichever package
 * raised it: a stable `code`, an HTTP `status` (400..599), `expose: true`
 * (its message is written for the client), and optionally extra body fields
 * (`details`, e.g. `retry_after_secs`) and response headers (`headers`, e.g.
 * `Retry-After` or a cookie-clearing `Set-Cookie`).
 *
 * Packages keep their own error class and code table; any class whose
 * instances have these fields is a wire error. Anything else thrown is an
 * internal error: logged, and answered with a generic 500.
 */
export interface WireError {
  readonly code: string;
  readonly status: number;
  readonly message: string;
  readonly expose: true;
  /** Extra fields sent beside `error` in the body, e.g. `{ retry_after_secs: 42 }`. */
  readonly details?: Readonly<Record<string, unknown>>;
  /** Response headers, e.g. `{ "Retry-After": "42" }`. */
  readonly headers?: Readonly<Record<string, string | readonly string[]>>;
}

/** Whether `error` may be shown to a client as it is (see `WireError`). */
export function isWireError(error: unknown): error is WireError {
  if (!(error instanceof Error)) return false;
  const candidate = error as Error & Partial<Record<keyof WireError, unknown>>;
  return (
    candidate.expose === true &&
    typeof candidate.code === "string" &&
    typeof candidate.status === "number" &&
    Number.isInteger(candidate.status) &&
    candidate.status >= 400 &&
    candidate.status <= 599
  );
}

/** The JSON body of every error response: the envelope, plus a wire error's details beside it. */
export interface ErrorBody {
  readonly error: { readonly code: string; readonly message: string };
  readonly [detail: string]: unknown;
}

/** What an HTTP adapter sends for a thrown value; see `toErrorResponse`. */
export interface ErrorResponse {
  readonly status: number;
  readonly body: ErrorBody;
  readonly headers: Readonly<Record<string, string | readonly string[]>>;
  /** True when the error was not a wire error: log it, the client only sees a generic 500. */
  readonly internal: boolean;
}

const GENERIC_500 = { code: "INTERNAL_ERROR", message: commonErrorCodes.INTERNAL_ERROR.message };

const STORAGE_FULL_RESPONSE: ErrorResponse = {
  status: STORAGE_FULL.status,
  body: {
    retry_after_secs: STORAGE_FULL_RETRY_AFTER_SECS,
    error: {
      code: STORAGE_FULL.code,
      message: "The server's storage is full; try again later.",
    },
  },
  headers: { "Retry-After": String(STORAGE_FULL_RETRY_AFTER_SECS) },
  internal: false,
};

/**
 * Maps any thrown value to the response an HTTP adapter sends. This is the
 * one place errors become HTTP: a wire error keeps its code, status, message,
 * details and headers; a client error of the HTTP framework itself (an
 * http-errors object with a 4xx status and no svc code) becomes 400
 * `BAD_REQUEST`, or `INVALID_PATH` for a badly encoded path; a failure
 * whose cause is a full disk or database (`isStorageFull`), from whichever
 * package, is `507 STORAGE_FULL` with `Retry-After`; anything else is a
 * generic 500 with nothing of the original in it.
 */
export function toErrorResponse(error: unknown): ErrorResponse {
  // Before the wire check: a package's own 5xx (DATABASE_ERROR, a failed
  // function) over a full disk says so, and so does a raw driver error.
  if ((!isWireError(error) || error.status >= 500) && isStorageFull(error)) {
    return STORAGE_FULL_RESPONSE;
  }
  if (isWireError(error)) {
    // `error` is the envelope's own key; a detail can never replace it.
    const { error: _envelope, ...details } = error.details ?? {};
    return {
      status: error.status,
      body: { ...details, error: { code: error.code, message: error.message } },
      headers: error.headers ?? {},
      internal: false,
    };
  }
  const clientStatus = (error as { status?: unknown } | null)?.status;
  if (typeof clientStatus === "number" && clientStatus >= 400 && clientStatus < 500) {
    const invalidPath = error instanceof URIError;
    return {
      status: 400,
      body: {
        error: invalidPath
          ? { code: "INVALID_PATH", message: commonErrorCodes.INVALID_PATH.message }
          : { code: "BAD_REQUEST", message: commonErrorCodes.BAD_REQUEST.message },
      },
      headers: {},
      internal: false,
    };
  }
  return { status: 500, body: { error: GENERIC_500 }, headers: {}, internal: true };
}
