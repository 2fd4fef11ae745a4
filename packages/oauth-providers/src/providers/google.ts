import { defineProvider, endpoint, optionalFields } from "../define-provider.js";
import type { OAuthProvider, OAuthProviderOptions } from "../provider.js";

/** The issuers Google signs ID tokens as. */
const GOOGLE_ISSUERS = ["https://accounts.google.com", "accounts.google.com"] as const;

/**
 * Sign in with Google (OpenID Connect): PKCE S256 and a nonce; the identity
 * comes from the ID token's `sub`, `email`, `email_verified`, `name` and
 * `picture`. Default scopes `openid email profile`. Endpoint roles:
 * `accounts` (https://accounts.google.com) and `token`
 * (https://oauth2.googleapis.com).
 *
 * @example
 * const google = createGoogleProvider({ clientId, clientSecret, redirectURI });
 */
export function createGoogleProvider(options: OAuthProviderOptions): OAuthProvider {
  const accounts = endpoint(options, "accounts", "https://accounts.google.com");
  const token = endpoint(options, "token", "https://oauth2.googleapis.com");
  return defineProvider(
    {
      id: "google",
      name: "Google",
      authorizationEndpoint: `${accounts}/o/oauth2/v2/auth`,
      tokenEndpoint: `${token}/token`,
      pkce: true,
      nonce: true,
      defaultScopes: ["openid", "email", "profile"],
      async identity({ idTokenClaims }) {
        const claims = idTokenClaims(GOOGLE_ISSUERS);
        const email = typeof claims.email === "string" ? claims.email : null;
        return {
          providerUserId: String(claims.sub),
          email,
          emailVerified: email !== null && claims.email_verified === true,
          ...optionalFields({
            name: typeof claims.name === "string" ? claims.name : undefined,
            avatarUrl: typeof claims.picture === "string" ? claims.picture : undefined,
          }),
        };
      },
    },
    options,
  );
}
