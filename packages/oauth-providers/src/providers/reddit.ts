import { z } from "zod";
import { defineProvider, endpoint, optionalFields } from "../define-provider.js";
import type { OAuthProvider, OAuthProviderOptions } from "../provider.js";

const userSchema = z.object({
  id: z.string(),
  name: z.string(),
  icon_img: z.string().nullish(),
});

/**
 * Sign in with Reddit: no PKCE (Reddit takes none); the identity is
 * `/api/v1/me`. Reddit exposes no email: `email` is null. Default scope
 * `identity`. Endpoint roles: `web` (https://www.reddit.com) and `api`
 * (https://oauth.reddit.com).
 *
 * @example
 * const reddit = createRedditProvider({ clientId, clientSecret, redirectURI });
 */
export function createRedditProvider(options: OAuthProviderOptions): OAuthProvider {
  const web = endpoint(options, "web", "https://www.reddit.com");
  const api = endpoint(options, "api", "https://oauth.reddit.com");
  return defineProvider(
    {
      id: "reddit",
      name: "Reddit",
      authorizationEndpoint: `${web}/api/v1/authorize`,
      tokenEndpoint: `${web}/api/v1/access_token`,
      pkce: false,
      defaultScopes: ["identity"],
      async identity({ getJSON }) {
        const user = await getJSON(`${api}/api/v1/me`, userSchema);
        return {
          providerUserId: user.id,
          email: null,
          emailVerified: false,
          ...optionalFields({ name: user.name, avatarUrl: user.icon_img?.split("?")[0] }),
        };
      },
    },
    options,
  );
}
