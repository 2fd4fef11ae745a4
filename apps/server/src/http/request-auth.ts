import { type AuthenticateOptions, checkCsrf, resolveRequestAuth } from "@svc/auth-core/express";
import { isBillingWebhook } from "@svc/billing/express";
import { isFileUploadPath } from "@svc/files/express";
import { isOAuthCallback } from "@svc/oauth-providers/express";
import cors from "cors";
import type { NextFunction, Request, RequestHandler, Response } from "express";

/**
 * The gate in front of every /api route, as one middleware: CORS (only when
 * the request carries an `Origin`; preflights end here), then the caller,
 * resolved once per request by @svc/auth-core (bearer, else session
 * cookie), then the CSRF check for cookie-authenticated changes. The
 * OAuth callbacks and the billing webhook pass untouched.
 */
export function apiGate(options: {
  authenticate: AuthenticateOptions;
  /** `true` reflects any origin (dev mode); otherwise the allowed origins. */
  corsOrigins: true | readonly string[];
  /** Origins trusted for cookie-authenticated changes; `true` trusts all (dev mode). */
  csrfOrigins: true | readonly string[];
  /** The files router's prefix, when mounted: its local upload PUTs carry a one-time token instead. */
  filesURLPrefix?: string;
}): RequestHandler {
  const { filesURLPrefix } = options;
  const isFileUpload = (req: Request): boolean =>
    filesURLPrefix !== undefined && isFileUploadPath(req, filesURLPrefix);
  const corsHandler = cors({
    origin: options.corsOrigins === true ? true : [...options.corsOrigins],
    credentials: true,
    maxAge: 600,
    // Browser clients page through entity lists with the first and learn
    // that a retried write was answered from its idempotency record with the
    // second; the third names the request in the server's log.
    exposedHeaders: ["X-Next-Cursor", "Idempotent-Replayed", "X-Request-Id"],
  });
  // One promise step per request: the CSRF check is synchronous.
  const authenticate = (req: Request, res: Response, next: NextFunction): void => {
    resolveRequestAuth(req, res, options.authenticate).then(() => {
      try {
        checkCsrf(req, options.csrfOrigins);
      } catch (error) {
        next(error);
        return;
      }
      next();
    }, next);
  };
  return (req: Request, res: Response, next: NextFunction) => {
    // OAuth callbacks are top-level navigations (Apple's a cross-site POST)
    // that may carry a stale cookie or bearer: they read no caller, so none
    // is resolved and no CSRF check applies; the state binds them instead.
    // The billing webhook is the processor's POST, bound by its signature.
    // Every test reads `req.path`, the parsed path express routes on.
    if (!req.path.startsWith("/api/") || isOAuthCallback(req) || isBillingWebhook(req)) {
      next();
      return;
    }
    // A local file upload PUT is bound by its one-time token: it reads no
    // caller, but a browser on an allowed origin must see the answer.
    if (isFileUpload(req)) {
      if (req.headers.origin === undefined) next();
      else corsHandler(req, res, next);
      return;
    }
    if (req.headers.origin === undefined) {
      authenticate(req, res, next);
      return;
    }
    corsHandler(req, res, (error?: unknown) => {
      if (error) next(error);
      else authenticate(req, res, next);
    });
  };
}
