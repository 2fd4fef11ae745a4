import { type AuthContext, anonymousAuth } from "@svc/schema";
import {
  type CallerCookie,
  type CallerRequestInfo,
  type CallerSources,
  findCaller,
  getCaller,
  isCookieCaller,
  resolveCaller,
  setCaller,
} from "@svc/schema/http";
import type { NextFunction, Request, RequestHandler, Response } from "express";
import { type BearerResolver, invalidBearerError } from "../bearer-resolvers.js";

/**
 * What a resolver may look at besides the token: @svc/schema's
 * `CallerRequestInfo` (the caller seam lives there, below every package).
 */
export type RequestInfo = CallerRequestInfo;

// The resolvers are framework-free now; they stay importable from here, where they began.
export {
  adminTokenResolver,
  apiKeyResolver,
  type BearerResolver,
  sessionResolver,
} from "../bearer-resolvers.js";

/** Options of `authenticate`: @svc/schema's `CallerSources`, plus how to clear a stale cookie. */
export interface AuthenticateOptions extends CallerSources {
  /** Bearer resolvers in the spec's order: admin token, `pk.` API key, JWT, `svc_` session. */
  readonly resolvers: readonly BearerResolver[];
  /**
   * The session cookie, read when there is no `Authorization` header. A
   * stale cookie makes the caller anonymous (and is cleared), never a 401:
   * public pages must keep working for a browser holding an old cookie.
   */
  readonly cookie?: CallerCookie & {
    /** The `Set-Cookie` value that deletes the cookie. */
    clear(): string;
  };
}

/**
 * Resolves the caller of a request from `Authorization: Bearer <token>` (no
 * header: the session cookie, else anonymous) through @svc/schema's
 * `resolveCaller`, and records it for `getAuth` (`getCaller`). A malformed
 * header, or a token no resolver accepts, is 401 `INVALID_TOKEN`. Run it
 * once, before every route that reads `getAuth(req)`.
 */
export async function resolveRequestAuth(
  req: Request,
  res: Response,
  options: AuthenticateOptions,
): Promise<void> {
  const found = await resolveCaller(req, options);
  switch (found.status) {
    case "bearer":
      setCaller(req, found.caller);
      return;
    case "cookie":
      setCaller(req, found.caller, { cookie: true });
      return;
    case "anonymous":
      if (found.staleCookie && options.cookie !== undefined) {
        res.append("Set-Cookie", options.cookie.clear());
      }
      setCaller(req, anonymousAuth);
      return;
    case "malformed":
    case "rejected":
      throw invalidBearerError(found.status);
  }
}

/** `resolveRequestAuth` as express middleware. */
export function authenticate(options: AuthenticateOptions): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    resolveRequestAuth(req, res, options).then(() => next(), next);
  };
}

/**
 * The caller `authenticate` resolved for this request: @svc/schema's
 * `getCaller`, under the name auth-core has always documented. A request
 * `authenticate` never saw (a wiring mistake, or a path the app's gate did
 * not match) has no caller: that throws 401 `AUTH_REQUIRED`, a refusal the
 * client sees as such, never a 500 and never an anonymous pass.
 *
 * @example
 * router.get("/api/thing", (req, res) => res.json({ me: getAuth(req).userId }));
 */
export const getAuth: (req: object) => AuthContext = getCaller;

/**
 * The caller `authenticate` resolved for this request, or undefined when
 * none was (a route outside the gate, or a request refused before): for
 * logs and traces, which must not throw. @svc/schema's `findCaller`.
 *
 * @example
 * const kind = findAuth(req)?.via ?? "anonymous";
 */
export const findAuth: (req: object) => AuthContext | undefined = findCaller;

/** Whether the caller was resolved from the session cookie (what CSRF protection guards); @svc/schema's `isCookieCaller`. */
export const isCookieAuthenticated: (req: object) => boolean = isCookieCaller;
