import { defineProvider, endpoint, identityFromClaims } from "../define-provider.js";
import type { OAuthProvider, OAuthProviderOptions } from "../provider.js";

/**
 * Sign in with Slack (OpenID Connect): a nonce, no PKCE (Slack's OpenID
 * endpoints take none); the identity comes from the ID token (`sub`,
 * `email`, `email_verified`, `name`, `picture`). Default scopes
 * `openid email profile`. Endpoint role: `slack` (https://slack.com).
 *
 * @example
 * const slack = createSlackProvider({ clientId, clientSecret, redirectURI });
 */
export function createSlackProvider(options: OAuthProviderOptions): OAuthProvider {
  const slack = endpoint(options, "slack", "https://slack.com");
  return defineProvider(
    {
      id: "slack",
      name: "Slack",
      authorizationEndpoint: `${slack}/openid/connect/authorize`,
      tokenEndpoint: `${slack}/api/openid.connect.token`,
      pkce: false,
      nonce: true,
      defaultScopes: ["openid", "email", "profile"],
      async identity({ idTokenClaims }) {
        return identityFromClaims(idTokenClaims(["https://slack.com"]));
      },
    },
    options,
  );
}
