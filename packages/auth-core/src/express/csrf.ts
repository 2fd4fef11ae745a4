import type { Request } from "express";
import { AuthError } from "../errors.js";
import { isCookieAuthenticated } from "./request-auth.js";

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/**
 * Whether a browser's `Origin` may act on this server: the server's own
 * origin (the protocol and host express reads, which follow `trust proxy`)
 * or a trusted one; `true` trusts every origin but the opaque `null`.
 */
export function isTrustedOrigin(
  req: Request,
  origin: string,
  trustedOrigins: true | readonly string[],
): boolean {
  if (origin === "null") return false;
  if (trustedOrigins === true || trustedOrigins.includes(origin)) return true;
  return origin === `${req.protocol}://${req.host ?? ""}`;
}

/** A `Sec-Fetch-Site` that says another site (or a sibling subdomain) made the request. */
export function isCrossSiteFetch(req: Request): boolean {
  const site = req.headers["sec-fetch-site"];
  return site === "cross-site" || site === "same-site";
}

/**
 * Refuses a cross-site change made with the session cookie (403
 * `CSRF_FAILED`). Only unsafe methods of cookie-authenticated requests are
 * checked: a bearer token cannot be sent by another site. The `Origin` must
 * be the server's own or a trusted one (`SVC_CSRF_ORIGINS`, else the
 * manifest's `auth.trustedOrigins`, plus the origin of `SVC_PUBLIC_URL` in
 * svc's server; `true` trusts every origin, dev mode). Without `Origin`, a
 * browser's `Sec-Fetch-Site: cross-site` (or `same-site`) is refused and
 * anything else (non-browser clients, old browsers that send neither on
 * same-origin requests) is let through.
 */
export function checkCsrf(req: Request, trustedOrigins: true | readonly string[]): void {
  if (SAFE_METHODS.has(req.method) || !isCookieAuthenticated(req)) return;
  const origin = req.headers.origin;
  if (origin === undefined ? isCrossSiteFetch(req) : !isTrustedOrigin(req, origin, trustedOrigins))
    throw new AuthError("CSRF_FAILED");
}
