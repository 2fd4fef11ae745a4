import type { AuthContext } from "./auth-context.js";
import { readCookie } from "./read-cookie.js";

/**
 * What `resolveCaller` reads of a request. Structural, so this package
 * stays free of `node:` and express: a Node `IncomingMessage` (a WebSocket
 * upgrade, an SSE request), an express `Request`, or the copy of a live
 * connection's request that sync keeps to re-check its caller all fit.
 */
export interface CallerRequest {
  readonly headers: {
    readonly authorization?: string | undefined;
    readonly cookie?: string | undefined;
    readonly "user-agent"?: string | undefined;
  };
  /** The client address as express sees it (after `trust proxy`); the socket's peer address otherwise. */
  readonly ip?: string | undefined;
  readonly socket?: { readonly remoteAddress?: string | undefined } | undefined;
}

/** What a resolver may look at besides the token, read on demand. */
export interface CallerRequestInfo {
  /** The client address: express's `req.ip`, else the socket's peer address. */
  readonly ip: string | undefined;
  readonly userAgent: string | undefined;
  /** The raw `Cookie` header. */
  readonly cookie: string | undefined;
}

/**
 * Turns a bearer token into a caller. Returns null when the token is not of
 * this resolver's kind, so the next one is tried (synchronously, when it can
 * tell at once: the hot path then waits on no promise); throws a wire error
 * (`INVALID_API_KEY`, `INVALID_TOKEN`, ...) when the token is of its kind but
 * invalid, so it is reported as such and never falls through.
 *
 * @example
 * const adminOnly: CallerResolver = (token) => (token === adminToken ? adminAuth : null);
 */
export type CallerResolver = (
  token: string,
  info: CallerRequestInfo,
) => AuthContext | null | Promise<AuthContext | null>;

/** The session cookie, read when the request presents no bearer token. */
export interface CallerCookie {
  /** The cookie's name, e.g. `svc_session`. */
  readonly name: string;
  /** The cookie's caller, or null for a stale cookie (unknown, expired, revoked). */
  resolve(token: string): Promise<AuthContext | null>;
}

/**
 * Where callers come from: the bearer resolvers and the session cookie. The
 * composer (svc's server, or a third party's app) builds it once from the
 * modules it mounts and hands the same one to the HTTP gate and to the live
 * transports.
 */
export interface CallerSources {
  /** Bearer resolvers in the spec's order: admin token, `pk.` API key, JWT, `svc_` session. */
  readonly resolvers: readonly CallerResolver[];
  /** The session cookie; none when undefined (bearer tokens only). */
  readonly cookie?: CallerCookie | undefined;
}

/** Options of `resolveCaller`. */
export interface ResolveCallerOptions extends CallerSources {
  /**
   * A bearer token the request carries elsewhere than in an `Authorization`
   * header: a WebSocket's `bearer.<token>` subprotocol, or the token a live
   * connection presented, when its caller is checked again. The header wins
   * when there is one.
   */
  readonly bearer?: string | undefined;
}

/**
 * What `resolveCaller` found. Expected outcomes are data: each transport
 * says them its own way (the HTTP gate answers 401 `INVALID_TOKEN` for
 * `malformed` and `rejected`; a WebSocket upgrade is refused).
 */
export type CallerResolution =
  /** A bearer resolver accepted the token. */
  | { readonly status: "bearer"; readonly caller: AuthContext }
  /** No bearer token; the session cookie resolved. */
  | { readonly status: "cookie"; readonly caller: AuthContext }
  /** No bearer token and no valid cookie; `staleCookie` when one was presented but did not resolve. */
  | { readonly status: "anonymous"; readonly staleCookie: boolean }
  /** An `Authorization` header that is not `Bearer <token>`. */
  | { readonly status: "malformed" }
  /** A bearer token no resolver accepted. */
  | { readonly status: "rejected" };

const MALFORMED: CallerResolution = Object.freeze({ status: "malformed" });
const REJECTED: CallerResolution = Object.freeze({ status: "rejected" });
const NO_COOKIE: CallerResolution = Object.freeze({ status: "anonymous", staleCookie: false });
const STALE_COOKIE: CallerResolution = Object.freeze({ status: "anonymous", staleCookie: true });

const BEARER = /^Bearer +(\S+) *$/i;

/**
 * What resolvers see of the request, read on demand (`req.ip` parses
 * forwarding headers, and most resolvers never ask). A class, not an object
 * literal with getters, which V8 builds far more slowly.
 */
class LazyRequestInfo implements CallerRequestInfo {
  readonly #req: CallerRequest;
  constructor(req: CallerRequest) {
    this.#req = req;
  }
  get ip(): string | undefined {
    return this.#req.ip ?? this.#req.socket?.remoteAddress;
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
 * The one bearer-resolution entry point, shared by the HTTP gate and the
 * live transports (WebSocket, SSE, rooms): the `Authorization: Bearer
 * <token>` header (else `options.bearer`) through the resolvers in order,
 * the first non-null answer winning; without a bearer token, the session
 * cookie. What a resolver throws (a bad API key) is thrown on.
 *
 * @example
 * const found = await resolveCaller(req, { resolvers, cookie: { name: "svc_session", resolve } });
 * if (found.status === "bearer" || found.status === "cookie") setCaller(req, found.caller);
 */
export async function resolveCaller(
  req: CallerRequest,
  options: ResolveCallerOptions,
): Promise<CallerResolution> {
  const header = req.headers.authorization;
  let token: string | undefined;
  if (header !== undefined && header !== "") {
    token = BEARER.exec(header)?.[1];
    if (token === undefined) return MALFORMED;
  } else {
    token = options.bearer;
  }
  if (token === undefined) {
    const cookie = options.cookie;
    const value = cookie === undefined ? undefined : readCookie(req.headers.cookie, cookie.name);
    if (cookie === undefined || value === undefined) return NO_COOKIE;
    const caller = await cookie.resolve(value);
    return caller === null ? STALE_COOKIE : { status: "cookie", caller };
  }
  const info = new LazyRequestInfo(req);
  for (const resolve of options.resolvers) {
    const answer = resolve(token, info);
    // Waiting only for real promises: each await of a plain value costs a
    // trip through the microtask queue, and most resolvers pass at once.
    const caller = isThenable(answer) ? await answer : answer;
    if (caller !== null) return { status: "bearer", caller };
  }
  return REJECTED;
}
