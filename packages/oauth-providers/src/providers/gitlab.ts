import { z } from "zod";
import { defineProvider, endpoint, optionalFields } from "../define-provider.js";
import type { OAuthProvider, OAuthProviderOptions } from "../provider.js";

const userSchema = z.object({
  id: z.number(),
  username: z.string(),
  name: z.string().nullish(),
  avatar_url: z.string().nullish(),
  email: z.string().nullish(),
  confirmed_at: z.string().nullish(),
});

/**
 * Sign in with GitLab (gitlab.com or self-managed): PKCE S256; the identity
 * is `/api/v4/user`, the email verified when GitLab reports `confirmed_at`.
 * Default scope `read_user`. Endpoint role: `gitlab` (https://gitlab.com;
 * set it to a self-managed instance's address).
 *
 * @example
 * const gitlab = createGitLabProvider({ clientId, clientSecret, redirectURI });
 */
export function createGitLabProvider(options: OAuthProviderOptions): OAuthProvider {
  const gitlab = endpoint(options, "gitlab", "https://gitlab.com");
  return defineProvider(
    {
      id: "gitlab",
      name: "GitLab",
      authorizationEndpoint: `${gitlab}/oauth/authorize`,
      tokenEndpoint: `${gitlab}/oauth/token`,
      pkce: true,
      defaultScopes: ["read_user"],
      async identity({ getJSON }) {
        const user = await getJSON(`${gitlab}/api/v4/user`, userSchema);
        const email = user.email ?? null;
        return {
          providerUserId: String(user.id),
          email,
          emailVerified: email !== null && typeof user.confirmed_at === "string",
          ...optionalFields({ name: user.name ?? user.username, avatarUrl: user.avatar_url }),
        };
      },
    },
    options,
  );
}
