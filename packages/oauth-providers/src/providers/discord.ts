import { z } from "zod";
import { defineProvider, endpoint, optionalFields } from "../define-provider.js";
import type { OAuthProvider, OAuthProviderOptions } from "../provider.js";

const userSchema = z.object({
  id: z.string(),
  username: z.string(),
  global_name: z.string().nullish(),
  avatar: z.string().nullish(),
  email: z.string().nullish(),
  verified: z.boolean().nullish(),
});

/**
 * Sign in with Discord: PKCE S256; the identity is `/api/users/@me`, whose
 * `verified` flag says whether the email is verified. Default scopes
 * `identify email`. Endpoint roles: `discord` (https://discord.com) and
 * `cdn` (https://cdn.discordapp.com, only used to build the avatar URL).
 *
 * @example
 * const discord = createDiscordProvider({ clientId, clientSecret, redirectURI });
 */
export function createDiscordProvider(options: OAuthProviderOptions): OAuthProvider {
  const discord = endpoint(options, "discord", "https://discord.com");
  const cdn = endpoint(options, "cdn", "https://cdn.discordapp.com");
  return defineProvider(
    {
      id: "discord",
      name: "Discord",
      authorizationEndpoint: `${discord}/oauth2/authorize`,
      tokenEndpoint: `${discord}/api/oauth2/token`,
      pkce: true,
      defaultScopes: ["identify", "email"],
      async identity({ getJSON }) {
        const user = await getJSON(`${discord}/api/users/@me`, userSchema);
        const email = user.email ?? null;
        return {
          providerUserId: user.id,
          email,
          emailVerified: email !== null && user.verified === true,
          ...optionalFields({
            name: user.global_name ?? user.username,
            avatarUrl: user.avatar ? `${cdn}/avatars/${user.id}/${user.avatar}.png` : undefined,
          }),
        };
      },
    },
    options,
  );
}
