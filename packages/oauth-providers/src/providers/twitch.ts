import { defineProvider, endpoint, identityFromClaims } from "../define-provider.js";
import type { OAuthProvider, OAuthProviderOptions } from "../provider.js";

/** Twitch signs its ID tokens as this issuer. */
const TWITCH_ISSUER = "https://id.twitch.tv/oauth2";

/** The OpenID Connect `claims` request: Twitch puts only what is asked for into the ID token. */
const CLAIMS = JSON.stringify({
  id_token: { email: null, email_verified: null, picture: null, preferred_username: null },
});

/**
 * Sign in with Twitch (OpenID Connect): a nonce, no PKCE (Twitch's
 * authorization server advertises none); the client id and secret go in
 * the form body (Twitch supports only `client_secret_post`). The identity
 * comes from the ID token, with `email`, `email_verified`, `picture` and
 * `preferred_username` requested through the `claims` parameter;
 * `emailVerified` is true only when `email_verified` is. Default scopes
 * `openid user:read:email`. Endpoint role: `id` (https://id.twitch.tv).
 *
 * @example
 * const twitch = createTwitchProvider({ clientId, clientSecret, redirectURI });
 */
export function createTwitchProvider(options: OAuthProviderOptions): OAuthProvider {
  const id = endpoint(options, "id", "https://id.twitch.tv");
  return defineProvider(
    {
      id: "twitch",
      name: "Twitch",
      authorizationEndpoint: `${id}/oauth2/authorize`,
      tokenEndpoint: `${id}/oauth2/token`,
      pkce: false,
      nonce: true,
      defaultScopes: ["openid", "user:read:email"],
      authorizationParams: { claims: CLAIMS },
      tokenRequest: { clientAuthentication: "body" },
      async identity({ idTokenClaims }) {
        const claims = idTokenClaims([TWITCH_ISSUER]);
        // The standard claims, but the display name is `preferred_username`.
        return identityFromClaims({ ...claims, name: claims.preferred_username });
      },
    },
    options,
  );
}
