import { z } from "zod";
import { defineProvider, endpoint, optionalFields } from "../define-provider.js";
import type { OAuthProvider, OAuthProviderOptions } from "../provider.js";

const userSchema = z.object({
  sub: z.string(),
  name: z.string().nullish(),
  picture: z.string().nullish(),
  email: z.string().nullish(),
  email_verified: z.boolean().nullish(),
});

/**
 * Sign in with LinkedIn (OpenID Connect): no PKCE (LinkedIn enables it for
 * native apps only, on request); the client id and secret go in the form
 * body (LinkedIn takes no HTTP Basic). The identity is the
 * `/v2/userinfo` answer, `emailVerified` true only when its
 * `email_verified` is. Default scopes `openid profile email`. Endpoint
 * roles: `web` (https://www.linkedin.com) and `api`
 * (https://api.linkedin.com).
 *
 * @example
 * const linkedin = createLinkedInProvider({ clientId, clientSecret, redirectURI });
 */
export function createLinkedInProvider(options: OAuthProviderOptions): OAuthProvider {
  const web = endpoint(options, "web", "https://www.linkedin.com");
  const api = endpoint(options, "api", "https://api.linkedin.com");
  return defineProvider(
    {
      id: "linkedin",
      name: "LinkedIn",
      authorizationEndpoint: `${web}/oauth/v2/authorization`,
      tokenEndpoint: `${web}/oauth/v2/accessToken`,
      pkce: false,
      defaultScopes: ["openid", "profile", "email"],
      tokenRequest: { clientAuthentication: "body" },
      async identity({ getJSON }) {
        const user = await getJSON(`${api}/v2/userinfo`, userSchema);
        const email = user.email ?? null;
        return {
          providerUserId: user.sub,
          email,
          emailVerified: email !== null && user.email_verified === true,
          ...optionalFields({ name: user.name, avatarUrl: user.picture }),
        };
      },
    },
    options,
  );
}
