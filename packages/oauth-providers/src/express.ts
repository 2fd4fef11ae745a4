export {
  createOAuthRouter,
  isOAuthCallback,
  OAUTH_CALLBACK_PREFIX,
  OAUTH_STATE_COOKIE,
  type OAuthRouterOptions,
  stateCookieName,
} from "./express/oauth-router.js";
