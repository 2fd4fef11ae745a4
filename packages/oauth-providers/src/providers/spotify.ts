import { z } from "zod";
import { defineProvider, endpoint, optionalFields } from "../define-provider.js";
import type { OAuthProvider, OAuthProviderOptions } from "../provider.js";

const userSchema = z.object({
  id: z.string(),
  display_name: z.string().nullish(),
  email: z.string().nullish(),
  images: z.array(z.object({ url: z.string() })).nullish(),
});

/**
 * Sign in with Spotify: PKCE S256; the identity is `/v1/me`. Spotify
 * documents its `email` as unverified, so `emailVerified` is always false.
 * Default scope `user-read-email`. Endpoint roles: `accounts`
 * (https://accounts.spotify.com) and `api` (https://api.spotify.com).
 *
 * @example
 * const spotify = createSpotifyProvider({ clientId, clientSecret, redirectURI });
 */
export function createSpotifyProvider(options: OAuthProviderOptions): OAuthProvider {
  const accounts = endpoint(options, "accounts", "https://accounts.spotify.com");
  const api = endpoint(options, "api", "https://api.spotify.com");
  return defineProvider(
    {
      id: "spotify",
      name: "Spotify",
      authorizationEndpoint: `${accounts}/authorize`,
      tokenEndpoint: `${accounts}/api/token`,
      pkce: true,
      defaultScopes: ["user-read-email"],
      async identity({ getJSON }) {
        const user = await getJSON(`${api}/v1/me`, userSchema);
        return {
          providerUserId: user.id,
          email: user.email ?? null,
          emailVerified: false,
          ...optionalFields({ name: user.display_name, avatarUrl: user.images?.[0]?.url }),
        };
      },
    },
    options,
  );
}
