import { z } from "zod";
import { defineProvider, endpoint, optionalFields } from "../define-provider.js";
import type { OAuthProvider, OAuthProviderOptions } from "../provider.js";

const userSchema = z.object({
  data: z.object({
    id: z.string(),
    name: z.string().nullish(),
    username: z.string(),
    profile_image_url: z.string().nullish(),
  }),
});

/**
 * Sign in with X (Twitter, OAuth 2.0): PKCE S256; the identity is
 * `/2/users/me`. No email is read: `email` is null. Default scopes
 * `users.read tweet.read`. Endpoint roles: `web` (https://twitter.com) and
 * `api` (https://api.twitter.com).
 *
 * @example
 * const twitter = createTwitterProvider({ clientId, clientSecret, redirectURI });
 */
export function createTwitterProvider(options: OAuthProviderOptions): OAuthProvider {
  const web = endpoint(options, "web", "https://twitter.com");
  const api = endpoint(options, "api", "https://api.twitter.com");
  return defineProvider(
    {
      id: "twitter",
      name: "X (Twitter)",
      authorizationEndpoint: `${web}/i/oauth2/authorize`,
      tokenEndpoint: `${api}/2/oauth2/token`,
      pkce: true,
      defaultScopes: ["users.read", "tweet.read"],
      async identity({ getJSON }) {
        const { data } = await getJSON(
          `${api}/2/users/me?user.fields=profile_image_url`,
          userSchema,
        );
        return {
          providerUserId: data.id,
          email: null,
          emailVerified: false,
          ...optionalFields({
            name: data.name ?? data.username,
            avatarUrl: data.profile_image_url,
          }),
        };
      },
    },
    options,
  );
}
