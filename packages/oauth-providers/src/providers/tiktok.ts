import { z } from "zod";
import { defineProvider, endpoint, optionalFields } from "../define-provider.js";
import { OAuthError } from "../errors.js";
import type { OAuthProvider, OAuthProviderOptions } from "../provider.js";

const USER_FIELDS = "open_id,union_id,avatar_url,display_name";

const userSchema = z.object({
  data: z.object({
    user: z.object({
      open_id: z.string(),
      display_name: z.string().nullish(),
      avatar_url: z.string().nullish(),
    }),
  }),
  error: z.object({ code: z.string() }).nullish(),
});

/**
 * Sign in with TikTok (Login Kit v2): PKCE S256; the client id is called
 * `client_key`, in the authorization URL and in the token request, whose
 * credentials go in the form body. The identity is `/v2/user/info/`
 * (`open_id`, the user's id for this app). TikTok exposes no email:
 * `email` is null. Default scope `user.info.basic` (scopes are
 * comma-separated). Endpoint roles: `web` (https://www.tiktok.com) and
 * `api` (https://open.tiktokapis.com).
 *
 * @example
 * const tiktok = createTikTokProvider({ clientId: clientKey, clientSecret, redirectURI });
 */
export function createTikTokProvider(options: OAuthProviderOptions): OAuthProvider {
  const web = endpoint(options, "web", "https://www.tiktok.com");
  const api = endpoint(options, "api", "https://open.tiktokapis.com");
  return defineProvider(
    {
      id: "tiktok",
      name: "TikTok",
      authorizationEndpoint: `${web}/v2/auth/authorize/`,
      tokenEndpoint: `${api}/v2/oauth/token/`,
      pkce: true,
      defaultScopes: ["user.info.basic"],
      scopeSeparator: ",",
      tokenRequest: { clientAuthentication: "body", clientIdParam: "client_key" },
      async identity({ getJSON }) {
        const answer = await getJSON(`${api}/v2/user/info/?fields=${USER_FIELDS}`, userSchema);
        if (answer.error && answer.error.code !== "ok") {
          throw new OAuthError("PROVIDER_ERROR", {
            cause: new Error(`TikTok user info answered ${answer.error.code}.`),
          });
        }
        const { user } = answer.data;
        return {
          providerUserId: user.open_id,
          email: null,
          emailVerified: false,
          ...optionalFields({ name: user.display_name, avatarUrl: user.avatar_url }),
        };
      },
    },
    options,
  );
}
