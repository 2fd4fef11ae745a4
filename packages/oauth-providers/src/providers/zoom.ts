import { z } from "zod";
import { defineProvider, endpoint, optionalFields } from "../define-provider.js";
import type { OAuthProvider, OAuthProviderOptions } from "../provider.js";

const userSchema = z.object({
  id: z.string(),
  email: z.string().nullish(),
  display_name: z.string().nullish(),
  first_name: z.string().nullish(),
  last_name: z.string().nullish(),
  pic_url: z.string().nullish(),
  verified: z.number().nullish(),
});

/**
 * Sign in with Zoom: PKCE S256; the identity is `/v2/users/me`, the email
 * verified only when Zoom reports `verified: 1`. Default scope
 * `user:read:user` (Zoom's granular scope for the user's own profile).
 * Endpoint roles: `zoom` (https://zoom.us) and `api` (https://api.zoom.us).
 *
 * @example
 * const zoom = createZoomProvider({ clientId, clientSecret, redirectURI });
 */
export function createZoomProvider(options: OAuthProviderOptions): OAuthProvider {
  const zoom = endpoint(options, "zoom", "https://zoom.us");
  const api = endpoint(options, "api", "https://api.zoom.us");
  return defineProvider(
    {
      id: "zoom",
      name: "Zoom",
      authorizationEndpoint: `${zoom}/oauth/authorize`,
      tokenEndpoint: `${zoom}/oauth/token`,
      pkce: true,
      defaultScopes: ["user:read:user"],
      async identity({ getJSON }) {
        const user = await getJSON(`${api}/v2/users/me`, userSchema);
        const email = user.email ?? null;
        const fullName = [user.first_name, user.last_name].filter(Boolean).join(" ");
        return {
          providerUserId: user.id,
          email,
          emailVerified: email !== null && user.verified === 1,
          ...optionalFields({ name: user.display_name ?? fullName, avatarUrl: user.pic_url }),
        };
      },
    },
    options,
  );
}
