import type { Request } from "express";
import { AuthError } from "../errors.js";
import { isCookieAuthenticated } from "./request-auth.js";

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/**
 * Refuses a cross-site change made with the session cookie (403
 * `CSRF_FAILED`). Only unsafe methods of cookie-authenticated requests are
 * checked: a bearer token cannot be sent by another site. The `Origin` must
 * be the server's own or a trusted one (`SVC_CSRF_ORIGINS`, else the
 * manifest's `auth.trustedOrigins`; `true` trusts every origin, dev mode).
 * Without `Origin`, a browser's `Sec-Fetch-Site: cross-site` is refused and
 * anything else (non-browser clients, old browsers that send neither on
 * same-origin requests) is let through.
 */
export function checkCsrf(req: Request, trustedOrigins: true | readonly string[]): void {
  if (SAFE_METHODS.has(req.method) || !isCookieAuthenticated(req)) return;
  const origin = req.headers.origin;
  if (origin === undefined) {
    const site = req.headers["sec-fetch-site"];
    if (site === "cross-site" || site === "same-site") throw new AuthError("CSRF_FAILED");
    return;
  }
  if (trustedOrigins === true && origin !== "null") return;
  const own = `${req.protocol}://${req.headers.host ?? ""}`;
  if (origin === own) return;
  if (trustedOrigins !== true && trustedOrigins.includes(origin)) return;
  throw new AuthError("CSRF_FAILED");
}
