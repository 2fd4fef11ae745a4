import { z } from "zod";
import { defineProvider, endpoint, optionalFields } from "../define-provider.js";
import type { OAuthProvider, OAuthProviderOptions } from "../provider.js";

const userSchema = z.object({
  account_id: z.string(),
  name: z.string().nullish(),
  nickname: z.string().nullish(),
  picture: z.string().nullish(),
  email: z.string().nullish(),
  email_verified: z.boolean().nullish(),
});

/**
 * Sign in with Atlassian (OAuth 2.0 3LO): PKCE S256 (not in Atlassian's
 * 3LO guide, sent as defence in depth); the client id and secret go in the
 * form body; the authorization URL carries `audience=api.atlassian.com`
 * and `prompt=consent`. The identity is `https://api.atlassian.com/me`,
 * `emailVerified` true only when its `email_verified` is. Default scope
 * `read:me`. Endpoint roles: `auth` (https://auth.atlassian.com) and `api`
 * (https://api.atlassian.com).
 *
 * @example
 * const atlassian = createAtlassianProvider({ clientId, clientSecret, redirectURI });
 */
export function createAtlassianProvider(options: OAuthProviderOptions): OAuthProvider {
  const auth = endpoint(options, "auth", "https://auth.atlassian.com");
  const api = endpoint(options, "api", "https://api.atlassian.com");
  return defineProvider(
    {
      id: "atlassian",
      name: "Atlassian",
      authorizationEndpoint: `${auth}/authorize`,
      tokenEndpoint: `${auth}/oauth/token`,
      pkce: true,
      defaultScopes: ["read:me"],
      authorizationParams: { audience: "api.atlassian.com", prompt: "consent" },
      tokenRequest: { clientAuthentication: "body" },
      async identity({ getJSON }) {
        const user = await getJSON(`${api}/me`, userSchema);
        const email = user.email ?? null;
        return {
          providerUserId: user.account_id,
          email,
          emailVerified: email !== null && user.email_verified === true,
          ...optionalFields({ name: user.name ?? user.nickname, avatarUrl: user.picture }),
        };
      },
    },
    options,
  );
}
