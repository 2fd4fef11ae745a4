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
  if (typeof value !== "string" || value === "" || value.length > 2048) {
    throw new AuthError("INVALID_REDIRECT");
  }
  if (value.startsWith("/") && !value.startsWith("//") && !value.startsWith("/\\")) {
    return new URL(value, options.baseURL).toString();
  }
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new AuthError("INVALID_REDIRECT");
  }
  const allowed = new Set([new URL(options.baseURL).origin, ...options.trustedOrigins]);
  if ((url.protocol !== "https:" && url.protocol !== "http:") || !allowed.has(url.origin)) {
    throw new AuthError("INVALID_REDIRECT");
  }
  return url.toString();
}
