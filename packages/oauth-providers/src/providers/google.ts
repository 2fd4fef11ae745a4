import { defineProvider, endpoint, identityFromClaims } from "../define-provider.js";
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
        return identityFromClaims(idTokenClaims(GOOGLE_ISSUERS));
      },
    },
    options,
  );
}
