import { AuthError } from "../errors.js";

/**
 * Resolves where a flow may send the browser afterwards. A path (`/done`)
 * resolves against `baseURL`; an absolute http(s) address must be on one of
 * `trustedOrigins` (exact origin match). Anything else, including `//host`
 * and `javascript:` addresses, is 400 `INVALID_REDIRECT`: svc is never an
 * open redirect.
 */
export function resolveRedirect(
  value: unknown,
  options: { baseURL: string; trustedOrigins: readonly string[] },
): string {
  // URL parsing silently drops tabs and newlines (`/\t/evil.example` would
  // become `//evil.example`), so refuse control characters outright.
  if (typeof value !== "string" || value === "" || value.length > 2048 || /\p{Cc}/u.test(value)) {
    throw new AuthError("INVALID_REDIRECT");
  }
  const isPath = value.startsWith("/") && !value.startsWith("//") && !value.startsWith("/\\");
  let url: URL;
  try {
    url = isPath ? new URL(value, options.baseURL) : new URL(value);
  } catch {
    throw new AuthError("INVALID_REDIRECT");
  }
  // Checked after resolving, paths included: whatever the parser made of
  // the value, the browser goes where `url` says.
  const allowed = new Set([new URL(options.baseURL).origin, ...options.trustedOrigins]);
  if ((url.protocol !== "https:" && url.protocol !== "http:") || !allowed.has(url.origin)) {
    throw new AuthError("INVALID_REDIRECT");
  }
  return url.toString();
}
