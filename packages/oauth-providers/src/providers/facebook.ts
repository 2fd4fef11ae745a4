import { z } from "zod";
import { defineProvider, endpoint, optionalFields } from "../define-provider.js";
import type { OAuthProvider, OAuthProviderOptions } from "../provider.js";

/** The Graph API version of every call. */
const GRAPH_VERSION = "v24.0";

const userSchema = z.object({
  id: z.string(),
  name: z.string().nullish(),
  email: z.string().nullish(),
  picture: z.object({ data: z.object({ url: z.string().nullish() }).nullish() }).nullish(),
});

/**
 * Sign in with Facebook: PKCE S256 (Facebook Login's manual flow takes a
 * code challenge); the client id and secret go in the form body of the
 * Graph token request. The identity is Graph `/me` (`id`, `name`, `email`,
 * `picture`). Facebook does not say whether the address is verified, so
 * `emailVerified` is false. Default scopes `email public_profile`.
 * Endpoint roles: `web` (https://www.facebook.com) and `graph`
 * (https://graph.facebook.com); Graph API v24.0.
 *
 * @example
 * const facebook = createFacebookProvider({ clientId, clientSecret, redirectURI });
 */
export function createFacebookProvider(options: OAuthProviderOptions): OAuthProvider {
  const web = endpoint(options, "web", "https://www.facebook.com");
  const graph = endpoint(options, "graph", "https://graph.facebook.com");
  return defineProvider(
    {
      id: "facebook",
      name: "Facebook",
      authorizationEndpoint: `${web}/${GRAPH_VERSION}/dialog/oauth`,
      tokenEndpoint: `${graph}/${GRAPH_VERSION}/oauth/access_token`,
      pkce: true,
      defaultScopes: ["email", "public_profile"],
      tokenRequest: { clientAuthentication: "body" },
      async identity({ getJSON }) {
        const user = await getJSON(
          `${graph}/${GRAPH_VERSION}/me?fields=id,name,email,picture`,
          userSchema,
        );
        return {
          providerUserId: user.id,
          email: user.email ?? null,
          emailVerified: false,
          ...optionalFields({ name: user.name, avatarUrl: user.picture?.data?.url }),
        };
      },
    },
    options,
  );
}
