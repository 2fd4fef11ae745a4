import { createHash, timingSafeEqual } from "node:crypto";
import { type Auth, AuthError, resolveRedirect } from "@svc/auth-core";
import { type CookieSettings, clientOf, readCookie, sessionCookie } from "@svc/auth-core/express";
import { toErrorResponse } from "@svc/schema";
import express, {
  type NextFunction,
  type Request,
  type RequestHandler,
  type Response,
  type Router,
} from "express";
import { OAuthError } from "../errors.js";
import type { OAuthProvider } from "../provider.js";
import { createHandshakeValues, type StateStore } from "../state-store.js";

/** Every callback path starts with this; the caller must not be resolved there (see `isOAuthCallback`). */
export const OAUTH_CALLBACK_PREFIX = "/api/auth/callback/";

/**
 * The name prefix of the cookies binding a handshake to the browser that
 * started it; each handshake has its own (`svc_oauth_state_<16 hex>`), so
 * sign-ins started in two tabs do not undo each other.
 */
export const OAUTH_STATE_COOKIE = "svc_oauth_state";

/** The state cookie's name for one handshake: derived from the state, so the callback knows which to read. */
export function stateCookieName(state: string): string {
  return `${OAUTH_STATE_COOKIE}_${createHash("sha256").update(state).digest("hex").slice(0, 16)}`;
}

const STATE_COOKIE_MAX_AGE_SECS = 10 * 60;

/** Options of `createOAuthRouter`. */
export interface OAuthRouterOptions {
  /** auth-core: turns the verified identity into a user and a session. */
  readonly auth: Pick<Auth, "signInWithIdentity" | "sessionLifetimeSecs">;
  /** The enabled providers (`parseOAuthConfig`, after `prepareOAuthProviders`). */
  readonly providers: readonly OAuthProvider[];
  /** Where handshakes wait for their callback (`createStateStore`). */
  readonly states: StateStore;
  /** The session cookie's settings, as auth-core's router uses them. */
  readonly cookie: CookieSettings;
  /** Origins a `callback` may point to besides the server's own. */
  readonly trustedOrigins: readonly string[];
  /** The server's public address (`SVC_PUBLIC_URL`); relative callbacks resolve against it. Default the request's own. */
  readonly publicURL?: string | undefined;
  /**
   * Runs before login and callback, e.g. auth-core's per-address sign-in
   * limiter (`createRateLimits(...).perIp`), so a flood of logins cannot
   * fill the state table. None by default.
   */
  readonly rateLimit?: RequestHandler;
  /** Largest accepted form body of a `form_post` callback. Default 64 KiB. */
  readonly bodyLimitBytes?: number;
  /**
   * Receives failures of a callback that the browser only sees as an error
   * code (provider outages, unexpected errors). Default: logged to stderr.
   */
  readonly onError?: (error: unknown, req: Request) => void;
}

/**
 * True for the OAuth callback routes. Mount `authenticate` (and any CSRF
 * check) so that it skips them: the provider sends the browser back with
 * whatever stale cookie it holds, and Apple's callback is a cross-site POST.
 */
export function isOAuthCallback(req: Pick<Request, "path">): boolean {
  return req.path.startsWith(OAUTH_CALLBACK_PREFIX);
}

function baseURLOf(req: Request, publicURL: string | undefined): string {
  return publicURL ?? `${req.protocol}://${req.headers.host ?? "localhost"}`;
}

function stateCookie(state: string, maxAgeSecs: number, secure: boolean): string {
  // Lax, never Strict: the cookie must come back on the provider's top-level
  // redirect to the callback. Scoped to the callback paths.
  return [
    `${stateCookieName(state)}=${maxAgeSecs === 0 ? "" : state}`,
    "Path=/api/auth/callback",
    `Max-Age=${maxAgeSecs}`,
    "HttpOnly",
    "SameSite=Lax",
    ...(secure ? ["Secure"] : []),
  ].join("; ");
}

function sameSecret(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

/** The callback's string parameters: the query of a GET, the form body of a POST. */
function paramsOf(req: Request): Record<string, string> {
  const source: unknown = req.method === "POST" ? req.body : req.query;
  const params: Record<string, string> = {};
  if (typeof source !== "object" || source === null) return params;
  for (const [key, value] of Object.entries(source)) {
    if (typeof value === "string") params[key] = value;
  }
  return params;
}

function withQuery(target: string, params: Record<string, string>): string {
  const url = new URL(target);
  for (const [key, value] of Object.entries(params)) url.searchParams.set(key, value);
  return url.toString();
}

function withFragment(target: string, params: Record<string, string>): string {
  const url = new URL(target);
  url.hash = new URLSearchParams(params).toString();
  return url.toString();
}

function readResponseMode(value: unknown): "cookie" | "token" {
  if (value === undefined || value === "cookie") return "cookie";
  if (value === "token") return "token";
  throw new AuthError("INVALID_QUERY", { message: "response must be cookie or token." });
}

function logError(error: unknown, req: Request): void {
  console.error(`svc: ${req.method} ${req.path} failed:`, error);
}

/**
 * The OAuth sign-in routes as one express router (absolute paths):
 *
 * - `GET /api/auth/providers`: `{ providers: [{ id, name, type, login_path }] }`.
 * - `GET /api/auth/login/<id>?callback=<url>&response=cookie|token`: starts a
 *   handshake (state, PKCE verifier and nonce kept by `states`) and redirects
 *   to the provider. `callback` must be a path or on a trusted origin.
 * - `GET|POST /api/auth/callback/<id>`: takes the state (single use), checks
 *   the state cookie on GET, exchanges the code, signs in through auth-core,
 *   sets the session cookie and sends the browser to the callback. Failures
 *   after the state was taken end there too, as `?error=<CODE>`.
 *
 * Errors before a callback is known (unknown provider, bad `callback`,
 * unknown state) are JSON envelopes: mount an error handler built on
 * `toErrorResponse` (auth-core's `authErrorHandler` is one).
 *
 * @example
 * app.use(createOAuthRouter({ auth, providers, states, cookie, trustedOrigins }));
 */
export function createOAuthRouter(options: OAuthRouterOptions): Router {
  const byId = new Map<string, OAuthProvider>();
  for (const provider of options.providers) {
    if (byId.has(provider.id)) {
      throw new TypeError(`createOAuthRouter: two providers share the id "${provider.id}".`);
    }
    byId.set(provider.id, provider);
  }
  const onError = options.onError ?? logError;
  const router = express.Router({ caseSensitive: true });
  const form = express.urlencoded({
    extended: false,
    limit: options.bodyLimitBytes ?? 64 * 1024,
    parameterLimit: 50,
  });
  const limit: RequestHandler =
    options.rateLimit ?? ((_req: Request, _res: Response, next: NextFunction) => next());
  const providerOf = (req: Request): OAuthProvider => {
    const provider = byId.get(String(req.params.provider));
    if (provider === undefined) throw new OAuthError("UNKNOWN_PROVIDER");
    return provider;
  };
  const listing = {
    providers: options.providers.map((provider) => ({
      id: provider.id,
      name: provider.name,
      type: provider.kind ?? "oauth",
      login_path: `/api/auth/login/${provider.id}`,
    })),
  };

  router.get("/api/auth/providers", (_req, res) => {
    res.json(listing);
  });

  router.get("/api/auth/login/:provider", limit, async (req, res) => {
    const provider = providerOf(req);
    const base = baseURLOf(req, options.publicURL);
    const callback = resolveRedirect(req.query.callback ?? "/", {
      baseURL: base,
      trustedOrigins: options.trustedOrigins,
    });
    const response = readResponseMode(req.query.response);
    const values = createHandshakeValues();
    await options.states.save({ ...values, provider: provider.id, callback, response });
    const location = provider.createAuthorizationURL(values);
    res.append(
      "Set-Cookie",
      stateCookie(values.state, STATE_COOKIE_MAX_AGE_SECS, options.cookie.secure),
    );
    res.set("Cache-Control", "no-store");
    res.redirect(302, location.toString());
  });

  const callback = async (req: Request, res: Response): Promise<void> => {
    const provider = providerOf(req);
    const params = paramsOf(req);
    // Until the state is taken there is no trusted place to send the
    // browser: these failures are JSON errors.
    const saved = await options.states.consume(params.state ?? "", provider.id);
    const target = saved.callback ?? `${baseURLOf(req, options.publicURL)}/`;
    res.set("Cache-Control", "no-store");
    res.append("Set-Cookie", stateCookie(params.state ?? "", 0, options.cookie.secure));
    try {
      // A GET comes from a top-level redirect, which carries the Lax state
      // cookie: it proves this browser started the handshake (no login
      // CSRF). Apple's form_post is a cross-site POST that carries no such
      // cookie; its state alone binds it.
      if (req.method === "GET") {
        const bound = readCookie(req.headers.cookie, stateCookieName(params.state ?? ""));
        if (bound === undefined || !sameSecret(bound, params.state ?? "")) {
          throw new OAuthError("INVALID_STATE");
        }
      }
      if (params.error !== undefined || params.code === undefined || params.code === "") {
        throw new OAuthError("PROVIDER_DENIED");
      }
      const identity = await provider.validateCallback({
        code: params.code,
        codeVerifier: saved.codeVerifier,
        nonce: saved.nonce,
        params,
      });
      const result = await options.auth.signInWithIdentity(identity, clientOf(req));
      if (!("token" in result)) {
        res.redirect(
          303,
          withFragment(target, {
            second_factor_required: "true",
            challenge: result.challenge,
            methods: result.methods.join(","),
          }),
        );
        return;
      }
      res.append(
        "Set-Cookie",
        sessionCookie(result.token, options.auth.sessionLifetimeSecs, options.cookie),
      );
      res.redirect(
        303,
        saved.response === "token"
          ? withFragment(target, {
              token: result.token,
              user_id: result.user_id,
              expires_at: String(result.expires_at),
            })
          : target,
      );
    } catch (error) {
      const { status, body, internal } = toErrorResponse(error);
      if (internal || status >= 500) onError(error, req);
      res.redirect(303, withQuery(target, { error: body.error.code }));
    }
  };
  router.get("/api/auth/callback/:provider", limit, callback);
  router.post("/api/auth/callback/:provider", limit, form, callback);
  return router;
}
