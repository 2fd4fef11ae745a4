import type { OAuthProvider, OAuthProviderOptions } from "./provider.js";
import { type AppleProviderOptions, createAppleProvider } from "./providers/apple.js";
import { createAtlassianProvider } from "./providers/atlassian.js";
import { createDiscordProvider } from "./providers/discord.js";
import { createDropboxProvider } from "./providers/dropbox.js";
import { createFacebookProvider } from "./providers/facebook.js";
import { createFigmaProvider } from "./providers/figma.js";
import { createGitHubProvider } from "./providers/github.js";
import { createGitLabProvider } from "./providers/gitlab.js";
import { createGoogleProvider } from "./providers/google.js";
import { createKickProvider } from "./providers/kick.js";
import { createLinearProvider } from "./providers/linear.js";
import { createLinkedInProvider } from "./providers/linkedin.js";
import { createMicrosoftProvider, type MicrosoftProviderOptions } from "./providers/microsoft.js";
import { createNotionProvider } from "./providers/notion.js";
import { createPayPalProvider } from "./providers/paypal.js";
import { createRedditProvider } from "./providers/reddit.js";
import { createRobloxProvider } from "./providers/roblox.js";
import { createSalesforceProvider } from "./providers/salesforce.js";
import { createSlackProvider } from "./providers/slack.js";
import { createSpotifyProvider } from "./providers/spotify.js";
import { createTikTokProvider } from "./providers/tiktok.js";
import { createTwitchProvider } from "./providers/twitch.js";
import { createTwitterProvider } from "./providers/twitter.js";
import { createVercelProvider } from "./providers/vercel.js";
import { createZoomProvider } from "./providers/zoom.js";

/**
 * The built-in providers, id to factory, in the order of the svc
 * specification (the order `parseOAuthConfig` reads them). Ids are the
 * lower-case provider names. Every factory takes `OAuthProviderOptions`
 * except Apple's, whose client secret is minted from a key
 * (`AppleProviderOptions`).
 */
export const builtinProviders = {
  google: createGoogleProvider,
  github: createGitHubProvider,
  apple: createAppleProvider,
  microsoft: createMicrosoftProvider as (options: MicrosoftProviderOptions) => OAuthProvider,
  discord: createDiscordProvider,
  slack: createSlackProvider,
  spotify: createSpotifyProvider,
  twitch: createTwitchProvider,
  twitter: createTwitterProvider,
  linkedin: createLinkedInProvider,
  facebook: createFacebookProvider,
  gitlab: createGitLabProvider,
  reddit: createRedditProvider,
  notion: createNotionProvider,
  linear: createLinearProvider,
  vercel: createVercelProvider,
  zoom: createZoomProvider,
  salesforce: createSalesforceProvider,
  atlassian: createAtlassianProvider,
  figma: createFigmaProvider,
  dropbox: createDropboxProvider,
  tiktok: createTikTokProvider,
  paypal: createPayPalProvider,
  kick: createKickProvider,
  roblox: createRobloxProvider,
} as const satisfies Record<
  string,
  | ((options: OAuthProviderOptions) => OAuthProvider)
  | ((options: AppleProviderOptions) => OAuthProvider)
>;

/** The id of a built-in provider. */
export type BuiltinProviderId = keyof typeof builtinProviders;

/** Every built-in provider id, in the order `parseOAuthConfig` reads them. */
export const builtinProviderIds = Object.keys(builtinProviders) as BuiltinProviderId[];
