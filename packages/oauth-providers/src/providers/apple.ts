import { importPKCS8, SignJWT } from "jose";
import { z } from "zod";
import { defineProvider, endpoint, optionalFields } from "../define-provider.js";
import type { OAuthProvider, OAuthProviderOptions } from "../provider.js";

/** Apple signs its ID tokens as this issuer; it is also the audience of the client secret. */
const APPLE_ISSUER = "https://appleid.apple.com";

/** How long a minted client secret is valid (Apple allows up to six months; a token exchange needs seconds). */
const CLIENT_SECRET_TTL_SECONDS = 300;

/** Options of the Apple provider: no client secret, the key that mints one instead. */
export interface AppleProviderOptions extends Omit<OAuthProviderOptions, "clientSecret"> {
  /** The Services ID of the web sign-in, e.g. `com.example.web`. */
  readonly clientId: string;
  /** The 10-character Apple Developer Team ID (the `iss` of the client secret). */
  readonly teamId: string;
  /** The 10-character id of the Sign in with Apple key (the `kid` of the client secret). */
  readonly keyId: string;
  /** The PEM text of the key's `.p8` file (PKCS#8, EC P-256). */
  readonly privateKey: string;
  /** Clock for the client secret's `iat` and `exp`, in milliseconds; default `Date.now`. */
  readonly now?: () => number;
}

/** The `user` form field Apple posts on the first sign-in only. */
const userParamSchema = z.object({
  name: z.object({ firstName: z.string().nullish(), lastName: z.string().nullish() }).nullish(),
});

/**
 * The display name from Apple's `user` callback parameter, a JSON string
 * sent on the first sign-in only; anything unreadable is no name. The
 * address in it is ignored: only the signed ID token's `email` counts.
 */
export function appleUserName(user: string | undefined): string | undefined {
  if (user === undefined) return undefined;
  let raw: unknown;
  try {
    raw = JSON.parse(user);
  } catch {
    return undefined;
  }
  const parsed = userParamSchema.safeParse(raw);
  if (!parsed.success) return undefined;
  const parts = [parsed.data.name?.firstName, parsed.data.name?.lastName]
    .map((part) => part?.trim())
    .filter((part): part is string => typeof part === "string" && part !== "");
  return parts.length > 0 ? parts.join(" ") : undefined;
}

/**
 * Sign in with Apple: PKCE S256 and a nonce; Apple answers with
 * `response_mode=form_post` (a cross-site POST to the callback). The
 * client secret is a fresh ES256 JWT minted with jose on every token
 * exchange (`kid` the key id; `iss` the team id, `sub` the client id,
 * `aud` https://appleid.apple.com, valid five minutes) and sent in the form
 * body with the client id. The identity comes from the ID token (`sub`,
 * `email`); `emailVerified` is true only when its `email_verified` is true
 * or "true" (Apple sends either). The name is read from the `user`
 * callback parameter, which Apple posts on the first sign-in only. Default
 * scopes `name email`. Endpoint role: `appleid` (https://appleid.apple.com).
 *
 * @example
 * const apple = createAppleProvider({ clientId: "com.example.web", teamId, keyId, privateKey, redirectURI });
 */
export function createAppleProvider(options: AppleProviderOptions): OAuthProvider {
  const appleid = endpoint(options, "appleid", APPLE_ISSUER);
  const now = options.now ?? Date.now;
  let key: ReturnType<typeof importPKCS8> | undefined;
  async function mintClientSecret(): Promise<string> {
    key ??= importPKCS8(options.privateKey, "ES256");
    const issuedAt = Math.floor(now() / 1000);
    return new SignJWT({})
      .setProtectedHeader({ alg: "ES256", kid: options.keyId })
      .setIssuer(options.teamId)
      .setSubject(options.clientId)
      .setAudience(APPLE_ISSUER)
      .setIssuedAt(issuedAt)
      .setExpirationTime(issuedAt + CLIENT_SECRET_TTL_SECONDS)
      .sign(await key);
  }
  return defineProvider(
    {
      id: "apple",
      name: "Apple",
      authorizationEndpoint: `${appleid}/auth/authorize`,
      tokenEndpoint: `${appleid}/auth/token`,
      pkce: true,
      nonce: true,
      responseMode: "form_post",
      defaultScopes: ["name", "email"],
      tokenRequest: { clientAuthentication: "body" },
      clientSecret: mintClientSecret,
      async identity({ idTokenClaims, params }) {
        const claims = idTokenClaims([APPLE_ISSUER]);
        const email = typeof claims.email === "string" ? claims.email : null;
        const verified = claims.email_verified === true || claims.email_verified === "true";
        return {
          providerUserId: String(claims.sub),
          email,
          emailVerified: email !== null && verified,
          ...optionalFields({ name: appleUserName(params.user) }),
        };
      },
    },
    options,
  );
}
