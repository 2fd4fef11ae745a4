import { defineErrors, type ErrorTable } from "@svc/schema";

/**
 * Every failure @svc/oauth-providers reports, keyed by a stable code, with
 * the status and message the client sees. Messages are fixed: a provider's
 * response text, a token or a client secret never reaches them (the
 * underlying failure is kept in `cause`, for the server's log only).
 */
export const oauthErrorCodes = {
  INVALID_STATE: {
    status: 400,
    message: "The sign-in state is unknown, expired or already used; start the sign-in again.",
  },
  PROVIDER_ERROR: {
    status: 502,
    message: "The identity provider could not be reached or answered unexpectedly.",
  },
  PROVIDER_DENIED: {
    status: 400,
    message: "The identity provider refused the sign-in (consent denied or the code is invalid).",
  },
  INVALID_ID_TOKEN: {
    status: 401,
    message: "The identity provider's ID token failed verification.",
  },
  UNKNOWN_PROVIDER: { status: 404, message: "No such sign-in provider is enabled." },
} as const satisfies ErrorTable;

/** A stable @svc/oauth-providers error code. */
export type OAuthErrorCode = keyof typeof oauthErrorCodes;

/**
 * The single error class of @svc/oauth-providers, made by `defineErrors`
 * from `oauthErrorCodes`; tell cases apart by `code`. Every instance is a
 * wire error: its message is the table's fixed text, safe to send to the
 * client.
 *
 * @example
 * throw new OAuthError("INVALID_STATE");
 */
export class OAuthError extends defineErrors("OAuthError", oauthErrorCodes) {
  // Only the cause is taken: a thrower cannot put a provider's text in the message.
  constructor(code: OAuthErrorCode, options: { readonly cause?: unknown } = {}) {
    super(code, { cause: options.cause });
  }
}
