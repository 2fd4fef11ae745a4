import { z } from "zod";
import { defineProvider, endpoint, optionalFields } from "../define-provider.js";
import type { OAuthProvider, OAuthProviderOptions } from "../provider.js";

const userSchema = z.object({
  sub: z.string(),
  name: z.string().nullish(),
  preferred_username: z.string().nullish(),
  picture: z.string().nullish(),
});

/**
 * Sign in with Roblox (OpenID Connect): PKCE S256 and a nonce; the
 * identity is the `/oauth/v1/userinfo` answer. Roblox exposes no email:
 * `email` is null. Default scopes `openid profile`. Endpoint role: `api`
 * (https://apis.roblox.com).
 *
 * @example
 * const roblox = createRobloxProvider({ clientId, clientSecret, redirectURI });
 */
export function createRobloxProvider(options: OAuthProviderOptions): OAuthProvider {
  const api = endpoint(options, "api", "https://apis.roblox.com");
  return defineProvider(
    {
      id: "roblox",
      name: "Roblox",
      authorizationEndpoint: `${api}/oauth/v1/authorize`,
      tokenEndpoint: `${api}/oauth/v1/token`,
      pkce: true,
      nonce: true,
      defaultScopes: ["openid", "profile"],
      async identity({ getJSON }) {
        const user = await getJSON(`${api}/oauth/v1/userinfo`, userSchema);
        return {
          providerUserId: user.sub,
          email: null,
          emailVerified: false,
          ...optionalFields({
            name: user.name ?? user.preferred_username,
            avatarUrl: user.picture,
          }),
        };
      },
    },
    options,
  );
}
