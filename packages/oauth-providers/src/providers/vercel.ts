import { defineProvider, endpoint, optionalFields } from "../define-provider.js";
import type { OAuthProvider, OAuthProviderOptions } from "../provider.js";

/** Vercel signs its ID tokens as this issuer. */
const VERCEL_ISSUER = "https://vercel.com";

/**
 * Sign in with Vercel (OpenID Connect): PKCE S256 and a nonce; the identity
 * comes from the ID token (`sub`, `email`, `name`, `preferred_username`,
 * `picture`). Vercel's ID token carries no `email_verified` claim, so
 * `emailVerified` is false. Default scopes `openid email profile`.
 * Endpoint roles: `web` (https://vercel.com) and `api`
 * (https://api.vercel.com).
 *
 * @example
 * const vercel = createVercelProvider({ clientId, clientSecret, redirectURI });
 */
export function createVercelProvider(options: OAuthProviderOptions): OAuthProvider {
  const web = endpoint(options, "web", "https://vercel.com");
  const api = endpoint(options, "api", "https://api.vercel.com");
  return defineProvider(
    {
      id: "vercel",
      name: "Vercel",
      authorizationEndpoint: `${web}/oauth/authorize`,
      tokenEndpoint: `${api}/login/oauth/token`,
      pkce: true,
      nonce: true,
      defaultScopes: ["openid", "email", "profile"],
      async identity({ idTokenClaims }) {
        const claims = idTokenClaims([VERCEL_ISSUER]);
        const name =
          typeof claims.name === "string"
            ? claims.name
            : typeof claims.preferred_username === "string"
              ? claims.preferred_username
              : undefined;
        return {
          providerUserId: String(claims.sub),
          email: typeof claims.email === "string" ? claims.email : null,
          emailVerified: false,
          ...optionalFields({
            name,
            avatarUrl: typeof claims.picture === "string" ? claims.picture : undefined,
          }),
        };
      },
    },
    options,
  );
}
