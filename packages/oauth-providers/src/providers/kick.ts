import { z } from "zod";
import { defineProvider, endpoint, optionalFields } from "../define-provider.js";
import { OAuthError } from "../errors.js";
import type { OAuthProvider, OAuthProviderOptions } from "../provider.js";

const usersSchema = z.object({
  data: z.array(
    z.object({
      user_id: z.union([z.number(), z.string()]),
      name: z.string().nullish(),
      email: z.string().nullish(),
      profile_picture: z.string().nullish(),
    }),
  ),
});

/**
 * Sign in with Kick (OAuth 2.1): PKCE S256 (required by Kick); the client
 * id and secret go in the form body. The identity is the first entry of
 * `/public/v1/users` (without ids: the signed-in user). Kick does not say
 * whether the address is verified, so `emailVerified` is false. Default
 * scope `user:read`. Endpoint roles: `id` (https://id.kick.com) and `api`
 * (https://api.kick.com).
 *
 * @example
 * const kick = createKickProvider({ clientId, clientSecret, redirectURI });
 */
export function createKickProvider(options: OAuthProviderOptions): OAuthProvider {
  const id = endpoint(options, "id", "https://id.kick.com");
  const api = endpoint(options, "api", "https://api.kick.com");
  return defineProvider(
    {
      id: "kick",
      name: "Kick",
      authorizationEndpoint: `${id}/oauth/authorize`,
      tokenEndpoint: `${id}/oauth/token`,
      pkce: true,
      defaultScopes: ["user:read"],
      tokenRequest: { clientAuthentication: "body" },
      async identity({ getJSON }) {
        const { data } = await getJSON(`${api}/public/v1/users`, usersSchema);
        const [user] = data;
        if (user === undefined) {
          throw new OAuthError("PROVIDER_ERROR", { cause: new Error("Kick listed no user.") });
        }
        return {
          providerUserId: String(user.user_id),
          email: user.email ?? null,
          emailVerified: false,
          ...optionalFields({ name: user.name, avatarUrl: user.profile_picture }),
        };
      },
    },
    options,
  );
}
