export { type OAuthModule, type OAuthModuleOptions, oauthModule } from "./express/oauth-module.js";
export {
  createOAuthRouter,
  isOAuthCallback,
  OAUTH_CALLBACK_PREFIX,
  OAUTH_STATE_COOKIE,
  type OAuthRouterOptions,
  stateCookieName,
} from "./express/oauth-router.js";
