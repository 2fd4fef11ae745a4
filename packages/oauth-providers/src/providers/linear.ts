import { z } from "zod";
import { defineProvider, endpoint, optionalFields } from "../define-provider.js";
import type { OAuthProvider, OAuthProviderOptions } from "../provider.js";

const VIEWER_QUERY = "query { viewer { id name displayName email avatarUrl } }";

const viewerSchema = z.object({
  data: z.object({
    viewer: z.object({
      id: z.string(),
      name: z.string().nullish(),
      displayName: z.string().nullish(),
      email: z.string().nullish(),
      avatarUrl: z.string().nullish(),
    }),
  }),
});

/**
 * Sign in with Linear: PKCE S256; the client id and secret go in the form
 * body. The identity is the GraphQL `viewer` (POST `/graphql`). Linear does
 * not say whether the address is verified, so `emailVerified` is false.
 * Default scope `read` (scopes are comma-separated). Endpoint roles: `web`
 * (https://linear.app) and `api` (https://api.linear.app).
 *
 * @example
 * const linear = createLinearProvider({ clientId, clientSecret, redirectURI });
 */
export function createLinearProvider(options: OAuthProviderOptions): OAuthProvider {
  const web = endpoint(options, "web", "https://linear.app");
  const api = endpoint(options, "api", "https://api.linear.app");
  return defineProvider(
    {
      id: "linear",
      name: "Linear",
      authorizationEndpoint: `${web}/oauth/authorize`,
      tokenEndpoint: `${api}/oauth/token`,
      pkce: true,
      defaultScopes: ["read"],
      scopeSeparator: ",",
      tokenRequest: { clientAuthentication: "body" },
      async identity({ postJSON }) {
        const { data } = await postJSON(`${api}/graphql`, { query: VIEWER_QUERY }, viewerSchema);
        const { viewer } = data;
        return {
          providerUserId: viewer.id,
          email: viewer.email ?? null,
          emailVerified: false,
          ...optionalFields({
            name: viewer.name ?? viewer.displayName,
            avatarUrl: viewer.avatarUrl,
          }),
        };
      },
    },
    options,
  );
}
