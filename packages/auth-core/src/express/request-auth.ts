import { timingSafeEqual } from "node:crypto";
import { type AuthContext, adminAuth, anonymousAuth } from "@svc/schema";
import {
  type CallerCookie,
  type CallerRequestInfo,
  type CallerResolver,
  type CallerSources,
  findCaller,
  getCaller,
  isCookieCaller,
  resolveCaller,
  setCaller,
} from "@svc/schema/http";
import type { NextFunction, Request, RequestHandler, Response } from "express";
import type { Auth } from "../auth.js";
import { AuthError } from "../errors.js";

/**
 * What a resolver may look at besides the token: @svc/schema's
 * `CallerRequestInfo` (the caller seam lives there, below every package).
 */
export type RequestInfo = CallerRequestInfo;

/**
 * Turns a bearer token into a caller: @svc/schema's `CallerResolver`, the
 * one resolver shape the HTTP gate and the live transports share. Returns
 * null when the token is not of this resolver's kind, so the next one is
 * tried; throws an `AuthError` (or any wire error) when it is of its kind
 * but invalid, so a bad API key or JWT is reported as such and never falls
 * through to `INVALID_TOKEN`.
 */
export type BearerResolver = CallerResolver;

/**
 * The marks of the other bearer kinds: a session's `svc_`, an API key's
 * `pk.`, a JWT's dots. A presented token with a mark the admin token lacks
 * cannot be it.
 */
const OTHER_KINDS: readonly ((token: string) => boolean)[] = [
  (token) => token.startsWith("svc_"),
  (token) => token.startsWith("pk."),
  (token) => token.includes("."),
];

/**
 * Matches the admin token in constant time: the bytes are compared with
 * `timingSafeEqual`, which takes as long for every token of the admin
 * token's length; a token of another length is refused at once, which
 * reveals the length only (like `hmac.compare_digest` and its kin), and
 * the documented admin token's length (128+ hex characters) is no secret.
 * Tokens that carry another kind's mark which the admin token lacks are
 * passed on without a comparison; that reveals only that the admin token
 * lacks the mark, which its documented form (hex) says anyway.
 */
export function adminTokenResolver(adminToken: string): BearerResolver {
  const expected = Buffer.from(adminToken, "utf8");
  const ruledOut = OTHER_KINDS.filter((hasMark) => !hasMark(adminToken));
  return (token) => {
    for (const hasMark of ruledOut) if (hasMark(token)) return null;
    const presented = Buffer.from(token, "utf8");
    return presented.length === expected.length && timingSafeEqual(presented, expected)
      ? adminAuth
      : null;
  };
}

/** Resolves `svc_` session tokens; an unknown, revoked or expired one is 401 `INVALID_TOKEN`. */
export function sessionResolver(auth: Pick<Auth, "resolveSession">): BearerResolver {
  return async (token) => {
    if (!token.startsWith("svc_")) return null;
    const caller = await auth.resolveSession(token);
    if (caller === null) {
      throw new AuthError("INVALID_TOKEN", {
        message: "The session is unknown, expired or revoked.",
      });
    }
    return caller;
  };
}

/** Resolves `pk.` API keys; a bad one is 401 `INVALID_API_KEY` at once, never a fall-through. */
export function apiKeyResolver(auth: Pick<Auth, "resolveApiKey">): BearerResolver {
  // Any other token is passed on at once, without a promise to wait for.
  return (token) => (token.startsWith("pk.") ? auth.resolveApiKey(token) : null);
}

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
      throw new AuthError("INVALID_TOKEN", {
        message: "The Authorization header must be `Bearer <token>`.",
      });
    case "rejected":
      throw new AuthError("INVALID_TOKEN");
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
