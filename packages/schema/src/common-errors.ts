import type { ErrorDefinition } from "./define-errors.js";

/**
 * The codes several svc packages raise, each declared here once with its
 * status and default message. A package composes the ones it raises into
 * its own table with `commonErrors(...)`, or `commonError(code, message)`
 * where its clients have always read a wording of its own; the code and
 * status stay these.
 */
export const commonErrorCodes = {
  AUTH_REQUIRED: { status: 401, message: "This endpoint needs a signed-in session." },
  INVALID_TOKEN: { status: 401, message: "The bearer token is not valid." },
  ADMIN_REQUIRED: { status: 403, message: "This endpoint needs the admin token." },
  LOOPBACK_ONLY: { status: 403, message: "This endpoint answers loopback callers only." },
  POLICY_DENIED: { status: 403, message: "Access denied." },
  BAD_REQUEST: { status: 400, message: "The request is malformed." },
  INVALID_PATH: { status: 400, message: "The request path is not validly percent-encoded." },
  INVALID_JSON: { status: 400, message: "The request body is not valid JSON." },
  INVALID_QUERY: { status: 400, message: "The query string is malformed." },
  INVALID_BATCH: { status: 400, message: "The batch request is malformed." },
  PAYLOAD_TOO_LARGE: { status: 413, message: "The request body is too large." },
  ROUTE_NOT_FOUND: { status: 404, message: "No such route." },
  NOT_FOUND: { status: 404, message: "No such record." },
  RATE_LIMITED: { status: 429, message: "Too many requests; try again later." },
  INTERNAL_ERROR: { status: 500, message: "Something went wrong on the server." },
  NOT_READY: { status: 503, message: "The database is not reachable." },
  ENTITY_NOT_FOUND: { status: 404, message: "The entity does not exist." },
  USER_NOT_FOUND: { status: 404, message: "The session's user has no User row." },
  EMAIL_SEND_FAILED: { status: 500, message: "The email could not be sent; try again." },
} as const satisfies Record<string, ErrorDefinition>;

/** A code of `commonErrorCodes`. */
export type CommonErrorCode = keyof typeof commonErrorCodes;

/**
 * The named entries of `commonErrorCodes`, to spread into a package's table.
 *
 * @example
 * const billingErrorCodes = {
 *   ...commonErrors("ADMIN_REQUIRED", "INVALID_JSON"),
 *   PAYMENT_FAILED: { status: 502, message: "The payment processor failed." },
 * } as const;
 */
export function commonErrors<const TCode extends CommonErrorCode>(
  ...codes: readonly TCode[]
): { readonly [K in TCode]: (typeof commonErrorCodes)[K] } {
  const picked: Partial<Record<CommonErrorCode, ErrorDefinition>> = {};
  for (const code of codes) picked[code] = commonErrorCodes[code];
  return picked as { readonly [K in TCode]: (typeof commonErrorCodes)[K] };
}

/**
 * One common code with the package's own default message (the status stays
 * the common one), for a package whose clients have always read its wording.
 *
 * @example
 * const filesErrorCodes = {
 *   ...commonError("AUTH_REQUIRED", "Files need a signed-in user or the admin token."),
 * } as const;
 */
export function commonError<const TCode extends CommonErrorCode>(
  code: TCode,
  message: string,
): {
  readonly [K in TCode]: {
    readonly status: (typeof commonErrorCodes)[K]["status"];
    readonly message: string;
  };
} {
  return { [code]: { status: commonErrorCodes[code].status, message } } as {
    readonly [K in TCode]: {
      readonly status: (typeof commonErrorCodes)[K]["status"];
      readonly message: string;
    };
  };
}
