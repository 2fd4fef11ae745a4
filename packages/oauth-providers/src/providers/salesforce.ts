import { z } from "zod";
import { defineProvider, endpoint, optionalFields } from "../define-provider.js";
import type { OAuthProvider, OAuthProviderOptions } from "../provider.js";

const userSchema = z.object({
  user_id: z.string(),
  email: z.string().nullish(),
  email_verified: z.boolean().nullish(),
  name: z.string().nullish(),
  picture: z.string().nullish(),
});

/**
 * Sign in with Salesforce: PKCE S256; the identity is the
 * `/services/oauth2/userinfo` answer, with `email_verified` as Salesforce
 * reports it. Default scopes `openid email profile`. Endpoint role:
 * `login` (https://login.salesforce.com; a My Domain or
 * https://test.salesforce.com for sandboxes).
 *
 * @example
 * const salesforce = createSalesforceProvider({ clientId, clientSecret, redirectURI });
 */
export function createSalesforceProvider(options: OAuthProviderOptions): OAuthProvider {
  const login = endpoint(options, "login", "https://login.salesforce.com");
  return defineProvider(
    {
      id: "salesforce",
      name: "Salesforce",
      authorizationEndpoint: `${login}/services/oauth2/authorize`,
      tokenEndpoint: `${login}/services/oauth2/token`,
      pkce: true,
      defaultScopes: ["openid", "email", "profile"],
      async identity({ getJSON }) {
        const user = await getJSON(`${login}/services/oauth2/userinfo`, userSchema);
        const email = user.email ?? null;
        return {
          providerUserId: user.user_id,
          email,
          emailVerified: email !== null && user.email_verified === true,
          ...optionalFields({ name: user.name, avatarUrl: user.picture }),
        };
      },
    },
    options,
  );
}
