import { commonErrors, type DefinedErrorOptions, defineErrors, type ErrorTable } from "@svc/schema";

/**
 * Every failure @svc/auth-core reports, keyed by a stable code, with the
 * status and message the client sees. Codes and statuses named by the svc
 * specification are kept exactly; the others are documented in the README.
 * The codes several packages share (`AUTH_REQUIRED`, `INVALID_JSON`, ...)
 * come from `commonErrorCodes` in @svc/schema.
 */
export const authErrorCodes = {
  ...commonErrors(
    "AUTH_REQUIRED",
    "INVALID_TOKEN",
    "INVALID_JSON",
    "PAYLOAD_TOO_LARGE",
    "RATE_LIMITED",
    "LOOPBACK_ONLY",
    "NOT_FOUND",
    "ADMIN_REQUIRED",
    "INVALID_QUERY",
  ),
  UNAUTHORIZED: { status: 401, message: "This endpoint needs a signed-in session." },
  MISSING_EMAIL: { status: 400, message: "An email address is required." },
  INVALID_EMAIL: { status: 400, message: "The email address is not valid." },
  MISSING_CODE: { status: 400, message: "A code is required." },
  INVALID_CODE: { status: 401, message: "The code is wrong, expired or already used." },
  MISSING_PASSWORD: { status: 400, message: "A password is required." },
  INVALID_PASSWORD: {
    status: 400,
    message: "The password must be between 10 and 256 characters long.",
  },
  INVALID_CREDENTIALS: { status: 401, message: "The email or password is wrong." },
  PASSWORD_NOT_SET: {
    status: 400,
    message:
      "This account has no password to change; set a first one with a password reset (an emailed code).",
  },
  EMAIL_IN_USE: { status: 409, message: "An account with this email address already exists." },
  ACCOUNT_NOT_LINKED: {
    status: 409,
    message:
      "An account with this email address exists, but the provider did not verify the address; sign in another way.",
  },
  MISSING_PHONE: { status: 400, message: "A phone number is required." },
  INVALID_PHONE: {
    status: 400,
    message: "The phone number must be in international form, e.g. +14155550100.",
  },
  INVALID_REDIRECT: {
    status: 400,
    message: "The redirect address is not one of the trusted origins.",
  },
  INVALID_LINK: { status: 401, message: "The sign-in link is wrong, expired or already used." },
  CAPTCHA_FAILED: { status: 400, message: "CAPTCHA verification failed" },
  CSRF_FAILED: {
    status: 403,
    message: "The request's origin is not trusted for a cookie-authenticated change.",
  },
  ...commonErrors("USER_NOT_FOUND"),
  USER_ENTITY_MISSING: {
    status: 501,
    message: "The application declares no User entity, so this sign-in method is unavailable.",
  },
  ...commonErrors("EMAIL_SEND_FAILED"),
  SMS_SEND_FAILED: { status: 500, message: "The text message could not be sent; try again." },
  SMS_NOT_CONFIGURED: { status: 501, message: "No SMS transport is configured." },
  PERSIST_FAILED: {
    status: 500,
    message: "The User entity declares no emailVerified field, so verification cannot be stored.",
  },
  API_KEY_AUTH_FORBIDDEN: {
    status: 403,
    message: "An API key cannot do this; sign in with a session.",
  },
  SESSION_REQUIRED: {
    status: 403,
    message: "This endpoint needs a signed-in session, not a JWT.",
  },
  GUEST_NOT_ALLOWED: { status: 403, message: "A guest session cannot do this; sign in first." },
  INVALID_API_KEY: { status: 401, message: "The API key is revoked, expired or unknown." },
  INVALID_KEY_NAME: { status: 400, message: "An API key needs a name of 1 to 100 characters." },
  INVALID_SCOPES: { status: 400, message: "scopes must be a string of at most 1000 characters." },
  INVALID_EXPIRY: {
    status: 400,
    message: "expires_at must be null or a future time in unix seconds.",
  },
  NOT_A_MEMBER: { status: 403, message: "You are not a member of this organization." },
  MEMBERSHIP_UNAVAILABLE: {
    status: 501,
    message:
      "The application declares no membership entity (auth.org), so organizations are unavailable.",
  },
  INVALID_ORG: { status: 400, message: "orgId must be a non-empty string, or null to clear it." },
  TOTP_NOT_ENROLLED: {
    status: 400,
    message: "Two-factor authentication is not set up for this account; enrol first.",
  },
  TOTP_ALREADY_ENABLED: {
    status: 409,
    message: "Two-factor authentication is already on for this account.",
  },
  INVALID_TOTP: {
    status: 401,
    message: "The authenticator code or backup code is wrong or was already used.",
  },
  TOTP_UNREADABLE: {
    status: 500,
    message:
      "The stored authenticator secret can no longer be read (the deployment secret changed); an administrator must reset two-factor authentication for this account.",
  },
  INVALID_CHALLENGE: {
    status: 401,
    message: "The sign-in challenge is unknown, expired or already used; sign in again.",
  },
} as const satisfies ErrorTable;

/** A stable @svc/auth-core error code. */
export type AuthErrorCode = keyof typeof authErrorCodes;

/**
 * Options of an `AuthError` beyond its code: `message`, `status` (where the
 * spec leaves it to the endpoint, as email verify's `INVALID_CODE`),
 * `cause`, `details` (extra body fields, e.g. `{ retry_after_secs: 42 }`)
 * and `headers`.
 */
export type AuthErrorOptions = DefinedErrorOptions;

/**
 * The single error class of @svc/auth-core, made by `defineErrors` from
 * `authErrorCodes`; tell cases apart by `code`. Every instance is a wire
 * error (see `isWireError` in @svc/schema): its message is written for the
 * client and never holds a secret.
 *
 * @example
 * throw new AuthError("RATE_LIMITED", { details: { retry_after_secs: 30 } });
 */
export class AuthError extends defineErrors("AuthError", authErrorCodes) {}

/** A 429 `RATE_LIMITED` telling the client when to retry, in the body and in `Retry-After`. */
export function rateLimited(retryAfterSeconds: number, message?: string): AuthError {
  const seconds = Math.max(1, Math.ceil(retryAfterSeconds));
  return new AuthError("RATE_LIMITED", {
    ...(message !== undefined && { message }),
    details: { retry_after_secs: seconds },
    headers: { "Retry-After": String(seconds) },
  });
}
