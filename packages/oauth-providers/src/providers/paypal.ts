import { z } from "zod";
import { defineProvider, endpoint, optionalFields } from "../define-provider.js";
import { OAuthError } from "../errors.js";
import type { OAuthProvider, OAuthProviderOptions } from "../provider.js";

const userSchema = z.object({
  user_id: z.string().nullish(),
  sub: z.string().nullish(),
  name: z.string().nullish(),
  picture: z.string().nullish(),
  email: z.string().nullish(),
  email_verified: z.union([z.boolean(), z.string()]).nullish(),
});

/**
 * Sign in with PayPal (Log in with PayPal): no PKCE (PayPal documents
 * none); the identity is the OpenID Connect userinfo
 * (`/v1/identity/openidconnect/userinfo?schema=openid`), the email
 * verified only when its `email_verified` is true. `verified_account`
 * (a verified PayPal account: bank or card confirmed) says nothing about
 * the address and is not used. Default scopes `openid email profile`.
 * Endpoint roles: `web` (https://www.paypal.com) and `api`
 * (https://api-m.paypal.com); for the sandbox
 * https://www.sandbox.paypal.com and https://api-m.sandbox.paypal.com.
 *
 * @example
 * const paypal = createPayPalProvider({ clientId, clientSecret, redirectURI });
 */
export function createPayPalProvider(options: OAuthProviderOptions): OAuthProvider {
  const web = endpoint(options, "web", "https://www.paypal.com");
  const api = endpoint(options, "api", "https://api-m.paypal.com");
  return defineProvider(
    {
      id: "paypal",
      name: "PayPal",
      authorizationEndpoint: `${web}/signin/authorize`,
      tokenEndpoint: `${api}/v1/oauth2/token`,
      pkce: false,
      defaultScopes: ["openid", "email", "profile"],
      async identity({ getJSON }) {
        const user = await getJSON(
          `${api}/v1/identity/openidconnect/userinfo?schema=openid`,
          userSchema,
        );
        const providerUserId = user.user_id ?? user.sub;
        if (typeof providerUserId !== "string" || providerUserId === "") {
          throw new OAuthError("PROVIDER_ERROR", {
            cause: new Error("PayPal userinfo has neither user_id nor sub."),
          });
        }
        const email = user.email ?? null;
        const verified = user.email_verified === true || user.email_verified === "true";
        return {
          providerUserId,
          email,
          emailVerified: email !== null && verified,
          ...optionalFields({ name: user.name, avatarUrl: user.picture }),
        };
      },
    },
    options,
  );
}
