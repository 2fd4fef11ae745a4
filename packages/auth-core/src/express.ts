// The bearer resolvers are framework-free (also in the root export); here too for existing apps.
export {
  adminTokenResolver,
  apiKeyResolver,
  type BearerResolver,
  bearerResolvers,
  sessionResolver,
} from "./bearer-resolvers.js";
export { type AuthModule, type AuthModuleOptions, authModule } from "./express/auth-module.js";
export {
  type CookieSettings,
  clearedSessionCookie,
  clientOf,
  readCookie,
  SESSION_COOKIE,
  sessionCookie,
} from "./express/cookies.js";
export { checkCsrf, isTrustedOrigin } from "./express/csrf.js";
export { DatabaseRateLimitStore } from "./express/rate-limit-store.js";
export {
  createRateLimits,
  DEFAULT_ACCOUNT_LOCKOUT,
  DEFAULT_KNOWN_ADDRESS_MS,
  DEFAULT_PER_ACCOUNT,
  DEFAULT_PER_IP,
  type LimitRule,
  type RateLimitOptions,
} from "./express/rate-limits.js";
export {
  type AuthenticateOptions,
  authenticate,
  findAuth,
  getAuth,
  isCookieAuthenticated,
  type RequestInfo,
  resolveRequestAuth,
} from "./express/request-auth.js";
export {
  type AuthRouterOptions,
  authErrorHandler,
  createAuthRouter,
  setErrorHeaders,
} from "./express/router.js";
export { sessionCookieAllowed, signInGuard } from "./express/sign-in-guard.js";
