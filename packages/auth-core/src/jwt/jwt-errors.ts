import { defineErrors, type ErrorTable } from "@svc/schema";

/**
 * The failures of JWT mint and verify, with the status and message the client
 * sees (the svc specification's error table). Kept here until these rows join
 * `authErrorCodes`; the codes, statuses and messages are final.
 */
export const jwtErrorCodes = {
  INVALID_JWT: { status: 401, message: "The JWT is invalid or expired." },
  JWT_MISCONFIGURED: {
    status: 401,
    message: "JWTs are refused: SVC_JWT_SECRET is set but SVC_JWT_ISSUER is not.",
  },
  JWT_NOT_CONFIGURED: {
    status: 501,
    message: "JWT exchange is not configured (SVC_JWT_SECRET is unset).",
  },
} as const satisfies ErrorTable;

/** A stable JWT error code: `INVALID_JWT`, `JWT_MISCONFIGURED` or `JWT_NOT_CONFIGURED`. */
export type JWTErrorCode = keyof typeof jwtErrorCodes;

/** Options of a `JWTError` beyond its code. */
export interface JWTErrorOptions {
  /**
   * Why, for logs only: never sent to the client. `verifyJWT` puts an
   * `InvalidJWTReason` here; the upstream verifier the jose error.
   */
  readonly cause?: unknown;
}

/**
 * The error JWT mint and verify throw. Every instance is a wire error (see
 * `isWireError` in @svc/schema): `code`, `status`, `expose: true` and a
 * message from `jwtErrorCodes`, so the HTTP layer answers it as it stands.
 * Every verification failure is the one code `INVALID_JWT`; what exactly
 * failed stays in `cause`.
 *
 * @example
 * throw new JWTError("JWT_NOT_CONFIGURED");
 */
export class JWTError extends defineErrors("JWTError", jwtErrorCodes) {}
