import { z } from "zod";
import { defineProvider, endpoint, optionalFields } from "../define-provider.js";
import type { OAuthProvider, OAuthProviderOptions } from "../provider.js";

const userSchema = z.object({
  id: z.number(),
  login: z.string(),
  name: z.string().nullish(),
  avatar_url: z.string().nullish(),
});

const emailsSchema = z.array(
  z.object({ email: z.string(), primary: z.boolean(), verified: z.boolean() }),
);

/**
 * Sign in with GitHub: PKCE S256; the identity is `/user` and the primary
 * address of `/user/emails`, verified as GitHub reports it. Default scopes
 * `read:user user:email`. Endpoint roles: `web` (https://github.com) and
 * `api` (https://api.github.com; for GitHub Enterprise Server
 * `https://<host>/api/v3`).
 *
 * @example
 * const github = createGitHubProvider({ clientId, clientSecret, redirectURI });
 */
export function createGitHubProvider(options: OAuthProviderOptions): OAuthProvider {
  const web = endpoint(options, "web", "https://github.com");
  const api = endpoint(options, "api", "https://api.github.com");
  const headers = { Accept: "application/vnd.github+json" };
  return defineProvider(
    {
      id: "github",
      name: "GitHub",
      authorizationEndpoint: `${web}/login/oauth/authorize`,
      tokenEndpoint: `${web}/login/oauth/access_token`,
      pkce: true,
      defaultScopes: ["read:user", "user:email"],
      async identity({ getJSON }) {
        const user = await getJSON(`${api}/user`, userSchema, headers);
        const emails = await getJSON(`${api}/user/emails`, emailsSchema, headers);
        const primary = emails.find((entry) => entry.primary);
        return {
          providerUserId: String(user.id),
          email: primary?.email ?? null,
          emailVerified: primary?.verified === true,
          ...optionalFields({ name: user.name ?? user.login, avatarUrl: user.avatar_url }),
        };
      },
    },
    options,
  );
}
