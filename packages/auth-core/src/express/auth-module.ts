import type { SvcModule, SvcRuntime } from "@svc/store";
import type { IRouter, RequestHandler } from "express";
import type { Auth } from "../auth.js";
import { bearerResolvers } from "../bearer-resolvers.js";
import { type AuthOptions, createAuth } from "../create-auth.js";
import { createRateLimits } from "./rate-limits.js";
import { type AuthRouterOptions, createAuthRouter } from "./router.js";

/** What `authModule` needs beside the runtime. */
export interface AuthModuleOptions
  extends Pick<
    AuthOptions,
    | "sessionLifetimeSecs"
    | "email"
    | "sms"
    | "captcha"
    | "jwt"
    | "upstreamJWT"
    | "revocationPollMs"
    | "revocationSignal"
  > {
  /**
   * The attached SQLite database auth-core's tables go to (svc's server
   * keeps them in `SVC_SESSION_DB`, attached as `auth`); the main one when
   * undefined, and always on Postgres.
   */
  readonly schema?: string;
  /** The admin token, tried first among the bearer tokens; no admin token when undefined. */
  readonly adminToken?: string;
  /** The `/api/auth/...` routes; the rate limits' clock is the runtime's. */
  readonly router: AuthRouterOptions;
}

/** auth-core as a module, plus the core and what other modules build on. */
export interface AuthModule extends SvcModule<IRouter> {
  readonly auth: Auth;
  /**
   * A fresh per-address limiter sharing the sign-in endpoints' counters
   * (for other sign-in doors: OAuth, the studio); undefined when the
   * router's rate limits are off.
   */
  readonly signInLimiter: (() => RequestHandler) | undefined;
}

/**
 * auth-core built from the shared runtime: its tables, the `/api/auth`
 * routes, and the bearer resolvers in the spec's order (admin token, `pk.`
 * API key, JWT, `svc_` session).
 *
 * @example
 * const { auth, ...module } = authModule(runtime, { adminToken, router: { cookie, trustedOrigins } });
 */
export function authModule(runtime: SvcRuntime, options: AuthModuleOptions): AuthModule {
  const { schema, adminToken, router, ...settings } = options;
  const auth = createAuth({
    ...settings,
    store: runtime.store,
    database: {
      db: runtime.db,
      dialect: runtime.dialect,
      ...(schema !== undefined && { schema }),
    },
    secret: runtime.secret,
    devMode: runtime.devMode,
    now: runtime.now,
    logError: (message, error) => runtime.log.error({ err: error }, message),
  });
  const rateLimit = router.rateLimit === false ? false : { now: runtime.now, ...router.rateLimit };
  return {
    name: "@svc/auth-core",
    auth,
    signInLimiter:
      rateLimit === false
        ? undefined
        : () => createRateLimits({ database: auth.database, now: runtime.now }).perIp,
    migrations: auth.migrations,
    routes: (app) => app.use(createAuthRouter(auth, { ...router, rateLimit })),
    resolvers: bearerResolvers(auth, adminToken),
    reset: () => auth.reset(),
    close: () => auth.close(),
  };
}
