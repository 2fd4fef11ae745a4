import type { OAuthProvider, OAuthProviderOptions } from "./provider.js";
import { createDiscordProvider } from "./providers/discord.js";
import { createFigmaProvider } from "./providers/figma.js";
import { createGitHubProvider } from "./providers/github.js";
import { createGitLabProvider } from "./providers/gitlab.js";
import { createGoogleProvider } from "./providers/google.js";
import { createMicrosoftProvider, type MicrosoftProviderOptions } from "./providers/microsoft.js";
import { createNotionProvider } from "./providers/notion.js";
import { createRedditProvider } from "./providers/reddit.js";
import { createRobloxProvider } from "./providers/roblox.js";
import { createSalesforceProvider } from "./providers/salesforce.js";
import { createSlackProvider } from "./providers/slack.js";
import { createSpotifyProvider } from "./providers/spotify.js";
import { createTwitterProvider } from "./providers/twitter.js";

/**
 * The built-in providers of this release, id to factory. Ids are the
 * lower-case provider names of the svc specification.
 */
export const builtinProviders = {
  google: createGoogleProvider,
  github: createGitHubProvider,
  microsoft: createMicrosoftProvider as (options: MicrosoftProviderOptions) => OAuthProvider,
  discord: createDiscordProvider,
  gitlab: createGitLabProvider,
  slack: createSlackProvider,
  spotify: createSpotifyProvider,
  twitter: createTwitterProvider,
  reddit: createRedditProvider,
  notion: createNotionProvider,
  figma: createFigmaProvider,
  salesforce: createSalesforceProvider,
  roblox: createRobloxProvider,
} as const satisfies Record<string, (options: OAuthProviderOptions) => OAuthProvider>;

/** The id of a built-in provider. */
export type BuiltinProviderId = keyof typeof builtinProviders;

/** Every built-in provider id, in the order `parseOAuthConfig` reads them. */
export const builtinProviderIds = Object.keys(builtinProviders) as BuiltinProviderId[];
