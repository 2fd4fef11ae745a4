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
export { createDiscordProvider } from "./providers/discord.js";
export { createFigmaProvider } from "./providers/figma.js";
export { createGitHubProvider } from "./providers/github.js";
export { createGitLabProvider } from "./providers/gitlab.js";
export { createGoogleProvider } from "./providers/google.js";
export { createMicrosoftProvider, type MicrosoftProviderOptions } from "./providers/microsoft.js";
export { createNotionProvider } from "./providers/notion.js";
export { createRedditProvider } from "./providers/reddit.js";
export { createRobloxProvider } from "./providers/roblox.js";
export { createSalesforceProvider } from "./providers/salesforce.js";
export { createSlackProvider } from "./providers/slack.js";
export { createSpotifyProvider } from "./providers/spotify.js";
export { createTwitterProvider } from "./providers/twitter.js";
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
