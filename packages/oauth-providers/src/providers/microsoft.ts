import { defineProvider, endpoint, optionalFields } from "../define-provider.js";
import type { OAuthProvider, OAuthProviderOptions } from "../provider.js";

/** Options of the Microsoft provider: the common ones plus the Entra tenant. */
export interface MicrosoftProviderOptions extends OAuthProviderOptions {
  /** `common` (default), `organizations`, `consumers` or a tenant id or domain. */
  readonly tenant?: string;
}

/**
 * Sign in with Microsoft (Entra ID, OpenID Connect v2.0): PKCE S256 and a
 * nonce; the identity comes from the ID token. Entra does not vouch for the
 * `email` claim in general, so `emailVerified` is true only when the token
 * says so (`email_verified` or the `xms_edov` optional claim, "email domain
 * owner verified"). Default scopes `openid email profile`. Endpoint role:
 * `login` (https://login.microsoftonline.com).
 *
 * @example
 * const microsoft = createMicrosoftProvider({ clientId, clientSecret, redirectURI, tenant: "contoso.com" });
 */
export function createMicrosoftProvider(options: MicrosoftProviderOptions): OAuthProvider {
  const login = endpoint(options, "login", "https://login.microsoftonline.com");
  const tenant = encodeURIComponent(options.tenant ?? "common");
  return defineProvider(
    {
      id: "microsoft",
      name: "Microsoft",
      authorizationEndpoint: `${login}/${tenant}/oauth2/v2.0/authorize`,
      tokenEndpoint: `${login}/${tenant}/oauth2/v2.0/token`,
      pkce: true,
      nonce: true,
      defaultScopes: ["openid", "email", "profile"],
      async identity({ idTokenClaims }) {
        const claims = idTokenClaims();
        const email =
          typeof claims.email === "string"
            ? claims.email
            : typeof claims.preferred_username === "string" &&
                claims.preferred_username.includes("@")
              ? claims.preferred_username
              : null;
        const asserted = claims.email_verified === true || claims.xms_edov === true;
        return {
          providerUserId: String(claims.sub),
          email,
          emailVerified: email !== null && typeof claims.email === "string" && asserted,
          ...optionalFields({ name: typeof claims.name === "string" ? claims.name : undefined }),
        };
      },
    },
    options,
  );
}
