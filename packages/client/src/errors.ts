/** The code of a request that never got an HTTP answer (offline, DNS, refused, aborted). */
export const NETWORK_ERROR = "NETWORK_ERROR";

/** The code of a 2xx answer whose body is not the JSON the client expected. */
export const INVALID_RESPONSE = "INVALID_RESPONSE";

/** Options of `new SvcError`. */
export interface SvcErrorOptions {
  /** The HTTP status; 0 when no answer arrived. */
  readonly status: number;
  /** The envelope's fields beside `error`, e.g. `{ retry_after_secs: 42 }`. Default `{}`. */
  readonly details?: Readonly<Record<string, unknown>>;
  readonly cause?: unknown;
}

/**
 * Every failure of a client call: a non-2xx answer keeps the server's
 * stable `code`, its `message` and `status`, and the envelope's extra
 * fields in `details`; a request that got no answer is `NETWORK_ERROR`
 * with status 0. Tell errors apart by `code`.
 *
 * @example
 * try {
 *   await client.auth.sendMagicCode("a@example.com");
 * } catch (error) {
 *   if (error instanceof SvcError && error.code === "RATE_LIMITED") {
 *     console.log(`retry in ${error.retryAfterSecs} s`);
 *   }
 * }
 */
export class SvcError extends Error {
  override readonly name = "SvcError";
  readonly code: string;
  readonly status: number;
  readonly details: Readonly<Record<string, unknown>>;

  constructor(code: string, message: string, options: SvcErrorOptions) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.status = options.status;
    this.details = options.details ?? {};
  }

  /** The envelope's `retry_after_secs` (429 answers), when present. */
  get retryAfterSecs(): number | undefined {
    const value = this.details.retry_after_secs;
    return typeof value === "number" ? value : undefined;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * The `SvcError` for a non-2xx answer's parsed body (`undefined` when it
 * was not JSON): the envelope's code and message, or `HTTP_<status>` for a
 * body that is not an envelope (a proxy's error page, say).
 */
export function errorFromResponse(status: number, body: unknown): SvcError {
  if (isRecord(body) && isRecord(body.error) && typeof body.error.code === "string") {
    const { error, ...details } = body as { error: { code: string; message?: unknown } };
    const message = typeof error.message === "string" ? error.message : error.code;
    return new SvcError(error.code, message, { status, details });
  }
  return new SvcError(`HTTP_${status}`, `The server answered ${status}.`, { status });
}
