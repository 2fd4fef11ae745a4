import { AuthError } from "../errors.js";

/** The codes of auth-core's error table that the TOTP second factor raises. */
export type TotpErrorCode =
  | "TOTP_NOT_ENROLLED"
  | "TOTP_ALREADY_ENABLED"
  | "INVALID_TOTP"
  | "INVALID_CHALLENGE";

/** The `AuthError` for one of the TOTP codes. */
export function totpError(code: TotpErrorCode): AuthError {
  return new AuthError(code);
}
