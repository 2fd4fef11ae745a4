import type { NextFunction, Request, RequestHandler, Response } from "express";
import { AuthError } from "../errors.js";
import { isCrossSiteFetch, isTrustedOrigin } from "./csrf.js";

// Symbol.for: two copies of this package in one process still agree.
const NO_COOKIE = Symbol.for("@svc/auth-core.sign-in-no-cookie");

type GuardedRequest = Request & { [NO_COOKIE]?: true };

/** `application/json`, `application/<x>+json`, or no `Content-Type` at all (no body). */
function bodyKind(req: Request): "json" | "none" | "other" {
  const header = req.headers["content-type"];
  if (header === undefined || header === "") return "none";
  const type = (header.split(";", 1)[0] ?? "").trim().toLowerCase();
  return type === "application/json" || (type.startsWith("application/") && type.endsWith("+json"))
    ? "json"
    : "other";
}

/**
 * Guards a route that signs in and sets the session cookie against login
 * CSRF (another site signing the browser into an account of its choosing),
 * whether or not the request carries a cookie:
 *
 * - an `Origin` must be the server's own or a trusted one (`true` trusts
 *   every origin but `null`), and a browser's body must be declared JSON:
 *   an HTML form can send `text/plain`, form-encoded or multipart bodies
 *   without asking, never `application/json`;
 * - without `Origin`, `Sec-Fetch-Site: cross-site` or `same-site` is refused;
 * - a request with neither header (curl, native apps, servers) is served,
 *   but a body not declared JSON (`curl -d` sends form encoding) gets its
 *   token in the answer only, never the cookie: no old browser's form can
 *   plant one.
 *
 * A refusal is 403 `CSRF_FAILED`. Run it before the body is read; the
 * route then sets the cookie only when `sessionCookieAllowed(req)`.
 *
 * @example
 * router.post("/api/auth/password/login", signInGuard(["https://app.example.com"]), body, handler);
 */
export function signInGuard(trustedOrigins: true | readonly string[]): RequestHandler {
  return (req: Request, _res: Response, next: NextFunction) => {
    const origin = req.headers.origin;
    const fromBrowser = origin !== undefined || req.headers["sec-fetch-site"] !== undefined;
    if (
      origin === undefined ? isCrossSiteFetch(req) : !isTrustedOrigin(req, origin, trustedOrigins)
    ) {
      next(
        new AuthError("CSRF_FAILED", {
          message: "A sign-in must come from the server's own origin or a trusted one.",
        }),
      );
      return;
    }
    if (bodyKind(req) === "other") {
      if (fromBrowser) {
        next(
          new AuthError("CSRF_FAILED", {
            message:
              "A sign-in from a browser must send its body as Content-Type: application/json.",
          }),
        );
        return;
      }
      (req as GuardedRequest)[NO_COOKIE] = true;
    }
    next();
  };
}

/** Whether `signInGuard` lets this request's answer set the session cookie (true when it did not run). */
export function sessionCookieAllowed(req: Request): boolean {
  return (req as GuardedRequest)[NO_COOKIE] !== true;
}
