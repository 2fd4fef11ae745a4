import { CodeChallengeMethod, OAuth2Client, type OAuth2Tokens } from "arctic";
import { createRemoteJWKSet, customFetch, type JWTPayload, jwtVerify } from "jose";
import { z } from "zod";
import { exchangeError, getJSON, optionalFields } from "./define-provider.js";
import { OAuthError } from "./errors.js";
import type { OAuthIdentity, OAuthProvider } from "./provider.js";

/** Options of `createOIDCProvider`. */
export interface OIDCProviderOptions {
  /** Lower-case id, e.g. `okta`; the callback path is `/api/auth/callback/<id>`. */
  readonly id: string;
  /** Display name; default the id. */
  readonly name?: string;
  /** The issuer URL; discovery reads `<issuer>/.well-known/openid-configuration`. */
  readonly issuer: string;
  readonly clientId: string;
  readonly clientSecret: string;
  readonly redirectURI: string;
  /** Default `openid email profile`. */
  readonly scopes?: readonly string[];
  /** The fetch for discovery and the key set (JWKS); default the global one. */
  readonly fetch?: typeof fetch;
}

/** An OpenID Connect provider found by discovery; `ready()` fetches the document once. */
export interface OIDCProvider extends OAuthProvider {
  /** Fetches and checks the discovery document (once); `createAuthorizationURL` needs it. */
  ready(): Promise<void>;
}

const discoverySchema = z.object({
  issuer: z.string(),
  authorization_endpoint: z.url(),
  token_endpoint: z.url(),
  jwks_uri: z.url(),
  userinfo_endpoint: z.url().optional(),
});

type Discovery = z.infer<typeof discoverySchema>;

/** ID token algorithms accepted: asymmetric signatures only. */
const ALGORITHMS = [
  "RS256",
  "RS384",
  "RS512",
  "PS256",
  "PS384",
  "PS512",
  "ES256",
  "ES384",
  "ES512",
  "EdDSA",
];

/**
 * A generic OpenID Connect provider (any number: Okta, Auth0, Keycloak,
 * Entra, Authentik, enterprise SSO): the authorization code flow with PKCE
 * S256 and a nonce, the token exchange through arctic, and the ID token
 * verified with jose against the issuer's key set (`iss`, `aud` = client
 * id, `exp`) with its `nonce` compared. The identity comes from the claims
 * `sub`, `email`, `email_verified`, `name` and `picture`.
 *
 * Call `await provider.ready()` before the first `createAuthorizationURL`
 * (`parseOAuthConfig` leaves that to the caller; `validateCallback` does it
 * itself). Discovery failures throw `PROVIDER_ERROR`, and a document whose
 * `issuer` differs from the configured one is refused.
 *
 * @example
 * const okta = createOIDCProvider({ id: "okta", issuer: "https://example.okta.com", clientId, clientSecret, redirectURI });
 * await okta.ready();
 */
export function createOIDCProvider(options: OIDCProviderOptions): OIDCProvider {
  const fetchImpl = options.fetch ?? fetch;
  const issuer = options.issuer.replace(/\/+$/, "");
  const scopes = options.scopes ?? ["openid", "email", "profile"];
  const client = new OAuth2Client(options.clientId, options.clientSecret, options.redirectURI);
  let discovery: Discovery | undefined;
  let pending: Promise<Discovery> | undefined;
  let keys: ReturnType<typeof createRemoteJWKSet> | undefined;

  async function discover(): Promise<Discovery> {
    let response: Response;
    try {
      response = await fetchImpl(`${issuer}/.well-known/openid-configuration`, {
        headers: { Accept: "application/json" },
        signal: AbortSignal.timeout(10_000),
      });
    } catch (error) {
      throw new OAuthError("PROVIDER_ERROR", { cause: error });
    }
    if (!response.ok) {
      await response.body?.cancel();
      throw new OAuthError("PROVIDER_ERROR", {
        cause: new Error(`discovery answered ${response.status}`),
      });
    }
    const parsed = discoverySchema.safeParse(await response.json().catch(() => null));
    if (!parsed.success) throw new OAuthError("PROVIDER_ERROR", { cause: parsed.error });
    if (parsed.data.issuer.replace(/\/+$/, "") !== issuer) {
      throw new OAuthError("PROVIDER_ERROR", {
        cause: new Error("The discovery document names another issuer."),
      });
    }
    return parsed.data;
  }

  async function ready(): Promise<Discovery> {
    if (discovery !== undefined) return discovery;
    pending ??= discover().then(
      (found) => {
        discovery = found;
        keys = createRemoteJWKSet(new URL(found.jwks_uri), {
          [customFetch]: (url, init) => fetchImpl(url, init),
        });
        return found;
      },
      (error: unknown) => {
        pending = undefined;
        throw error;
      },
    );
    return pending;
  }

  async function verifyIdToken(
    tokens: OAuth2Tokens,
    config: Discovery,
    nonce: string,
  ): Promise<JWTPayload> {
    let idToken: string;
    try {
      idToken = tokens.idToken();
    } catch (error) {
      throw new OAuthError("INVALID_ID_TOKEN", { cause: error });
    }
    if (keys === undefined) throw new OAuthError("PROVIDER_ERROR");
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(idToken, keys, {
        issuer: config.issuer,
        audience: options.clientId,
        algorithms: ALGORITHMS,
        requiredClaims: ["sub", "exp", "iat"],
      }));
    } catch (error) {
      throw new OAuthError("INVALID_ID_TOKEN", { cause: error });
    }
    if (payload.nonce !== nonce) throw new OAuthError("INVALID_ID_TOKEN");
    return payload;
  }

  return {
    id: options.id,
    name: options.name ?? options.id,
    kind: "oidc",
    responseMode: "query",
    ready: async () => {
      await ready();
    },
    createAuthorizationURL({ state, codeVerifier, nonce, scopes: requested }) {
      if (discovery === undefined) {
        throw new TypeError(
          `OIDC provider ${options.id}: call ready() before createAuthorizationURL.`,
        );
      }
      const url = client.createAuthorizationURLWithPKCE(
        discovery.authorization_endpoint,
        state,
        CodeChallengeMethod.S256,
        codeVerifier,
        [...(requested ?? scopes)],
      );
      url.searchParams.set("nonce", nonce);
      return url;
    },
    async validateCallback({ code, codeVerifier, nonce }): Promise<OAuthIdentity> {
      const config = await ready();
      let tokens: OAuth2Tokens;
      try {
        tokens = await client.validateAuthorizationCode(config.token_endpoint, code, codeVerifier);
        if ("error" in tokens.data) throw new OAuthError("PROVIDER_DENIED");
      } catch (error) {
        throw exchangeError(error);
      }
      const claims = await verifyIdToken(tokens, config, nonce);
      let email = typeof claims.email === "string" ? claims.email : null;
      let verified = claims.email_verified === true;
      let name = typeof claims.name === "string" ? claims.name : undefined;
      let picture = typeof claims.picture === "string" ? claims.picture : undefined;
      // Some issuers put only `sub` in the ID token; the rest is at userinfo.
      if (email === null && config.userinfo_endpoint !== undefined && hasAccessToken(tokens)) {
        const info = await getJSON(config.userinfo_endpoint, tokens.accessToken(), userInfoSchema);
        if (info.sub === claims.sub) {
          email = info.email ?? null;
          verified = info.email_verified === true;
          name ??= info.name ?? undefined;
          picture ??= info.picture ?? undefined;
        }
      }
      return {
        provider: options.id,
        providerUserId: String(claims.sub),
        email,
        emailVerified: email !== null && verified,
        ...optionalFields({ name, avatarUrl: picture }),
      };
    },
  };
}

const userInfoSchema = z.object({
  sub: z.string(),
  email: z.string().nullish(),
  email_verified: z.boolean().nullish(),
  name: z.string().nullish(),
  picture: z.string().nullish(),
});

function hasAccessToken(tokens: OAuth2Tokens): boolean {
  return "access_token" in tokens.data && typeof tokens.data.access_token === "string";
}
