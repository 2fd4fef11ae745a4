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
  adminTokenResolver,
  apiKeyResolver,
  authenticate,
  type BearerResolver,
  findAuth,
  getAuth,
  isCookieAuthenticated,
  type RequestInfo,
  resolveRequestAuth,
  sessionResolver,
} from "./express/request-auth.js";
export {
  type AuthRouterOptions,
  authErrorHandler,
  createAuthRouter,
  setErrorHeaders,
} from "./express/router.js";
export { sessionCookieAllowed, signInGuard } from "./express/sign-in-guard.js";
