import { timingSafeEqual } from "node:crypto";
import { type AuthContext, adminAuth, anonymousAuth } from "@svc/schema";
import type { NextFunction, Request, RequestHandler, Response } from "express";
import type { Auth } from "../auth.js";
import { AuthError } from "../errors.js";
import { readCookie } from "./cookies.js";

/** What a resolver may look at besides the token. */
export interface RequestInfo {
  /** The client address as express sees it (after `trust proxy`). */
  readonly ip: string | undefined;
  readonly userAgent: string | undefined;
  /** The raw `Cookie` header. */
  readonly cookie: string | undefined;
}

/**
 * Turns a bearer token into a caller. Returns null when the token is not of
 * this resolver's kind, so the next one is tried; throws an `AuthError` (or
 * any wire error) when it is of its kind but invalid, so a bad API key or
 * JWT is reported as such and never falls through to `INVALID_TOKEN`.
 */
export type BearerResolver = (
  token: string,
  request: RequestInfo,
) => AuthContext | null | Promise<AuthContext | null>;

// Symbol.for: two copies of this package in one process still agree.
const AUTH = Symbol.for("@svc/auth-core.auth");
const COOKIE_AUTH = Symbol.for("@svc/auth-core.cookie-auth");

type RequestWithAuth = Request & { [AUTH]?: AuthContext; [COOKIE_AUTH]?: boolean };

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

/** Options of `authenticate`. */
export interface AuthenticateOptions {
  /** Bearer resolvers in the spec's order: admin token, `pk.` API key, JWT, `svc_` session. */
  readonly resolvers: readonly BearerResolver[];
  /**
   * The session cookie, read when there is no `Authorization` header. A
   * stale cookie makes the caller anonymous (and is cleared), never a 401:
   * public pages must keep working for a browser holding an old cookie.
   */
  readonly cookie?: {
    readonly name: string;
    resolve(token: string): Promise<AuthContext | null>;
    /** The `Set-Cookie` value that deletes the cookie. */
    clear(): string;
  };
}

/**
 * What resolvers see of the request, read on demand: `req.ip` parses
 * forwarding headers, and most resolvers never ask. A class, not an object
 * literal with getters, which V8 builds far more slowly.
 */
class LazyRequestInfo implements RequestInfo {
  readonly #req: Request;
  constructor(req: Request) {
    this.#req = req;
  }
  get ip(): string | undefined {
    return this.#req.ip;
  }
  get userAgent(): string | undefined {
    return this.#req.headers["user-agent"];
  }
  get cookie(): string | undefined {
    return this.#req.headers.cookie;
  }
}

function isThenable<T>(value: T | PromiseLike<T>): value is PromiseLike<T> {
  return typeof (value as { then?: unknown } | null)?.then === "function";
}

/**
 * Resolves the caller of a request from `Authorization: Bearer <token>` (no
 * header: the session cookie, else anonymous). A malformed header, or a
 * token no resolver accepts, is 401 `INVALID_TOKEN`. Run it once, before
 * every route that reads `getAuth(req)`.
 */
export async function resolveRequestAuth(
  req: Request,
  res: Response,
  options: AuthenticateOptions,
): Promise<void> {
  const target = req as RequestWithAuth;
  const header = req.headers.authorization;
  if (header === undefined || header === "") {
    const token =
      options.cookie === undefined
        ? undefined
        : readCookie(req.headers.cookie, options.cookie.name);
    const caller = token === undefined ? null : await options.cookie?.resolve(token);
    if (
      token !== undefined &&
      (caller === null || caller === undefined) &&
      options.cookie !== undefined
    ) {
      res.append("Set-Cookie", options.cookie.clear());
    }
    target[AUTH] = caller ?? anonymousAuth;
    target[COOKIE_AUTH] = caller !== null && caller !== undefined;
    return;
  }
  const match = /^Bearer +(\S+) *$/i.exec(header);
  const token = match?.[1];
  if (token === undefined) {
    throw new AuthError("INVALID_TOKEN", {
      message: "The Authorization header must be `Bearer <token>`.",
    });
  }
  const info = new LazyRequestInfo(req);
  for (const resolve of options.resolvers) {
    const answer = resolve(token, info);
    // Waiting only for real promises: each await of a plain value costs a
    // trip through the microtask queue, and most resolvers pass at once.
    const caller = isThenable(answer) ? await answer : answer;
    if (caller !== null) {
      target[AUTH] = caller;
      target[COOKIE_AUTH] = false;
      return;
    }
  }
  throw new AuthError("INVALID_TOKEN");
}

/** `resolveRequestAuth` as express middleware. */
export function authenticate(options: AuthenticateOptions): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    resolveRequestAuth(req, res, options).then(() => next(), next);
  };
}

/**
 * The caller `authenticate` resolved for this request: the one documented
 * way for any router (auth, OAuth, billing, sync) to learn who calls.
 * A request `authenticate` never saw (a wiring mistake, or a path the app's
 * gate did not match) has no caller: that throws 401 `AUTH_REQUIRED`, a
 * refusal the client sees as such, never a 500 and never an anonymous pass.
 *
 * @example
 * router.get("/api/thing", (req, res) => res.json({ me: getAuth(req).userId }));
 */
export function getAuth(req: Request): AuthContext {
  const auth = (req as RequestWithAuth)[AUTH];
  if (auth === undefined) {
    throw new AuthError("AUTH_REQUIRED", {
      message: "No caller was resolved for this request.",
      cause: new Error("@svc/auth-core: authenticate() must run before getAuth(req)"),
    });
  }
  return auth;
}

/**
 * The caller `authenticate` resolved for this request, or undefined when
 * none was (a route outside the gate, or a request refused before): for
 * logs and traces, which must not throw. Routes use `getAuth`.
 *
 * @example
 * const kind = findAuth(req)?.via ?? "anonymous";
 */
export function findAuth(req: Request): AuthContext | undefined {
  return (req as RequestWithAuth)[AUTH];
}

/** Whether the caller was resolved from the session cookie (what CSRF protection guards). */
export function isCookieAuthenticated(req: Request): boolean {
  return (req as RequestWithAuth)[COOKIE_AUTH] === true;
}
