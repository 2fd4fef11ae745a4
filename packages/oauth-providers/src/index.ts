export {
  type BuiltinProviderId,
  builtinProviderIds,
  builtinProviders,
} from "./builtin-providers.js";
export {
  type OAuthConfigOptions,
  type OAuthEnv,
  parseOAuthConfig,
  prepareOAuthProviders,
} from "./config.js";
export { OAuthError, type OAuthErrorCode, oauthErrorCodes } from "./errors.js";
export { createOIDCProvider, type OIDCProvider, type OIDCProviderOptions } from "./oidc.js";
export type {
  AuthorizationURLInput,
  CallbackInput,
  OAuthIdentity,
  OAuthProvider,
  OAuthProviderOptions,
} from "./provider.js";
export { type AppleProviderOptions, createAppleProvider } from "./providers/apple.js";
export { createAtlassianProvider } from "./providers/atlassian.js";
export { createDiscordProvider } from "./providers/discord.js";
export { createDropboxProvider } from "./providers/dropbox.js";
export { createFacebookProvider } from "./providers/facebook.js";
export { createFigmaProvider } from "./providers/figma.js";
export { createGitHubProvider } from "./providers/github.js";
export { createGitLabProvider } from "./providers/gitlab.js";
export { createGoogleProvider } from "./providers/google.js";
export { createKickProvider } from "./providers/kick.js";
export { createLinearProvider } from "./providers/linear.js";
export { createLinkedInProvider } from "./providers/linkedin.js";
export { createMicrosoftProvider, type MicrosoftProviderOptions } from "./providers/microsoft.js";
export { createNotionProvider } from "./providers/notion.js";
export { createPayPalProvider } from "./providers/paypal.js";
export { createRedditProvider } from "./providers/reddit.js";
export { createRobloxProvider } from "./providers/roblox.js";
export { createSalesforceProvider } from "./providers/salesforce.js";
export { createSlackProvider } from "./providers/slack.js";
export { createSpotifyProvider } from "./providers/spotify.js";
export { createTikTokProvider } from "./providers/tiktok.js";
export { createTwitchProvider } from "./providers/twitch.js";
export { createTwitterProvider } from "./providers/twitter.js";
export { createVercelProvider } from "./providers/vercel.js";
export { createZoomProvider } from "./providers/zoom.js";
export {
  createHandshakeValues,
  createStateStore,
  type HandshakeValues,
  type SavedState,
  STATE_TTL_MS,
  type StateStore,
  type StateStoreOptions,
} from "./state-store.js";
export { type OAuthStateTable, type OAuthStateTables, oauthStateMigrations } from "./tables.js";
