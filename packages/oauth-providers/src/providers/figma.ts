import { z } from "zod";
import { defineProvider, endpoint, optionalFields } from "../define-provider.js";
import type { OAuthProvider, OAuthProviderOptions } from "../provider.js";

const userSchema = z.object({
  id: z.string(),
  handle: z.string().nullish(),
  email: z.string().nullish(),
  img_url: z.string().nullish(),
});

/**
 * Sign in with Figma: PKCE S256; the identity is `/v1/me`. Figma does not
 * assert the email verified, so `emailVerified` is false. Default scope
 * `current_user:read`. Endpoint roles: `web` (https://www.figma.com) and
 * `api` (https://api.figma.com).
 *
 * @example
 * const figma = createFigmaProvider({ clientId, clientSecret, redirectURI });
 */
export function createFigmaProvider(options: OAuthProviderOptions): OAuthProvider {
  const web = endpoint(options, "web", "https://www.figma.com");
  const api = endpoint(options, "api", "https://api.figma.com");
  return defineProvider(
    {
      id: "figma",
      name: "Figma",
      authorizationEndpoint: `${web}/oauth`,
      tokenEndpoint: `${api}/v1/oauth/token`,
      pkce: true,
      defaultScopes: ["current_user:read"],
      async identity({ getJSON }) {
        const user = await getJSON(`${api}/v1/me`, userSchema);
        return {
          providerUserId: user.id,
          email: user.email ?? null,
          emailVerified: false,
          ...optionalFields({ name: user.handle, avatarUrl: user.img_url }),
        };
      },
    },
    options,
  );
}
