import { z } from "zod";
import { defineProvider, endpoint, optionalFields } from "../define-provider.js";
import { OAuthError } from "../errors.js";
import type { OAuthProvider, OAuthProviderOptions } from "../provider.js";

/** Notion returns the signed-in user with the token, as `owner`. */
const tokenSchema = z.object({
  owner: z.object({
    type: z.literal("user"),
    user: z.object({
      id: z.string(),
      name: z.string().nullish(),
      avatar_url: z.string().nullish(),
      person: z.object({ email: z.string().nullish() }).nullish(),
    }),
  }),
});

/**
 * Sign in with Notion: no PKCE (Notion takes none) and no scopes; the
 * identity is the `owner` user of the token response. Notion does not
 * assert the email verified, so `emailVerified` is false. Endpoint role:
 * `api` (https://api.notion.com).
 *
 * @example
 * const notion = createNotionProvider({ clientId, clientSecret, redirectURI });
 */
export function createNotionProvider(options: OAuthProviderOptions): OAuthProvider {
  const api = endpoint(options, "api", "https://api.notion.com");
  return defineProvider(
    {
      id: "notion",
      name: "Notion",
      authorizationEndpoint: `${api}/v1/oauth/authorize`,
      tokenEndpoint: `${api}/v1/oauth/token`,
      pkce: false,
      defaultScopes: [],
      authorizationParams: { owner: "user" },
      async identity({ tokens }) {
        const parsed = tokenSchema.safeParse(tokens.data);
        if (!parsed.success) throw new OAuthError("PROVIDER_ERROR", { cause: parsed.error });
        const { user } = parsed.data.owner;
        return {
          providerUserId: user.id,
          email: user.person?.email ?? null,
          emailVerified: false,
          ...optionalFields({ name: user.name, avatarUrl: user.avatar_url }),
        };
      },
    },
    options,
  );
}
