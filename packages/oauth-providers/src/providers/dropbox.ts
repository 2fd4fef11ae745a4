import { z } from "zod";
import { defineProvider, endpoint, optionalFields } from "../define-provider.js";
import type { OAuthProvider, OAuthProviderOptions } from "../provider.js";

const accountSchema = z.object({
  account_id: z.string(),
  name: z.object({ display_name: z.string().nullish() }).nullish(),
  email: z.string().nullish(),
  email_verified: z.boolean().nullish(),
  profile_photo_url: z.string().nullish(),
});

/**
 * Sign in with Dropbox: PKCE S256; the identity is the
 * `/2/users/get_current_account` RPC (a POST with a `null` body), the
 * email verified only when its `email_verified` is. Default scope
 * `account_info.read`. Endpoint roles: `web` (https://www.dropbox.com) and
 * `api` (https://api.dropboxapi.com).
 *
 * @example
 * const dropbox = createDropboxProvider({ clientId, clientSecret, redirectURI });
 */
export function createDropboxProvider(options: OAuthProviderOptions): OAuthProvider {
  const web = endpoint(options, "web", "https://www.dropbox.com");
  const api = endpoint(options, "api", "https://api.dropboxapi.com");
  return defineProvider(
    {
      id: "dropbox",
      name: "Dropbox",
      authorizationEndpoint: `${web}/oauth2/authorize`,
      tokenEndpoint: `${api}/oauth2/token`,
      pkce: true,
      defaultScopes: ["account_info.read"],
      async identity({ postJSON }) {
        const account = await postJSON(`${api}/2/users/get_current_account`, null, accountSchema);
        const email = account.email ?? null;
        return {
          providerUserId: account.account_id,
          email,
          emailVerified: email !== null && account.email_verified === true,
          ...optionalFields({
            name: account.name?.display_name,
            avatarUrl: account.profile_photo_url,
          }),
        };
      },
    },
    options,
  );
}
