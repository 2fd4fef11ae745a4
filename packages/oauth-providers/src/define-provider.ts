import {
  CodeChallengeMethod,
  decodeIdToken,
  OAuth2Client,
  OAuth2RequestError,
  type OAuth2Tokens,
} from "arctic";
import type { z } from "zod";
import { OAuthError } from "./errors.js";
import type { OAuthIdentity, OAuthProvider, OAuthProviderOptions } from "./provider.js";

/** How long a user-info call may take before it counts as a provider failure. */
const USER_INFO_TIMEOUT_MS = 10_000;

/** What a provider's identity step gets: the tokens and helpers bound to the provider. */
export interface IdentityContext {
  readonly tokens: OAuth2Tokens;
  readonly nonce: string;
  /** GETs `url` with the access token as a bearer and parses the JSON with `schema`. */
  getJSON<T>(url: string, schema: z.ZodType<T>, headers?: Record<string, string>): Promise<T>;
  /** The ID token's claims, after checking `aud` (the client id), `nonce` and `iss` when given. */
  idTokenClaims(issuers?: readonly string[]): Record<string, unknown>;
}

/** One built-in provider, as its file describes it. */
export interface ProviderDefinition {
  readonly id: string;
  readonly name: string;
  readonly authorizationEndpoint: string;
  readonly tokenEndpoint: string;
  /** Send an S256 PKCE challenge and the verifier. */
  readonly pkce: boolean;
  /** Send the OpenID Connect nonce with the authorization request. */
  readonly nonce?: boolean;
  readonly defaultScopes: readonly string[];
  /** Scope separator in the authorization URL; default a space. */
  readonly scopeSeparator?: string;
  /** Further authorization parameters, e.g. `{ prompt: "consent" }`. */
  readonly authorizationParams?: Readonly<Record<string, string>>;
  identity(context: IdentityContext): Promise<Omit<OAuthIdentity, "provider">>;
}

/**
 * `base` with the provider's override for `role` when the options carry one:
 * `endpoint(options, "api", "https://api.github.com")`.
 */
export function endpoint(options: OAuthProviderOptions, role: string, base: string): string {
  const override = options.endpoints?.[role];
  return (override ?? base).replace(/\/+$/, "");
}

/** Maps a token-exchange failure from arctic to a wire error without its text. */
export function exchangeError(error: unknown): OAuthError {
  if (error instanceof OAuthError) return error;
  if (error instanceof OAuth2RequestError)
    return new OAuthError("PROVIDER_DENIED", { cause: error });
  return new OAuthError("PROVIDER_ERROR", { cause: error });
}

/** GETs JSON with a bearer token; any failure becomes `PROVIDER_ERROR`. */
export async function getJSON<T>(
  url: string,
  accessToken: string,
  schema: z.ZodType<T>,
  headers: Record<string, string> = {},
): Promise<T> {
  let response: Response;
  try {
    response = await fetch(url, {
      headers: {
        Accept: "application/json",
        "User-Agent": "svc",
        ...headers,
        Authorization: `Bearer ${accessToken}`,
      },
      signal: AbortSignal.timeout(USER_INFO_TIMEOUT_MS),
    });
  } catch (error) {
    throw new OAuthError("PROVIDER_ERROR", { cause: error });
  }
  if (!response.ok) {
    await response.body?.cancel();
    throw new OAuthError("PROVIDER_ERROR", {
      cause: new Error(`${url} answered ${response.status}`),
    });
  }
  let body: unknown;
  try {
    body = await response.json();
  } catch (error) {
    throw new OAuthError("PROVIDER_ERROR", { cause: error });
  }
  const parsed = schema.safeParse(body);
  if (!parsed.success) throw new OAuthError("PROVIDER_ERROR", { cause: parsed.error });
  return parsed.data;
}

function audienceIncludes(aud: unknown, clientId: string): boolean {
  return aud === clientId || (Array.isArray(aud) && aud.includes(clientId));
}

/**
 * The claims of an ID token received straight from the provider's token
 * endpoint over TLS (OpenID Connect Core 3.1.3.7 lets the TLS server
 * check stand in for the signature there), with `aud`, `nonce`, `exp` and
 * optionally `iss` checked.
 */
export function checkedIdTokenClaims(
  tokens: OAuth2Tokens,
  input: { clientId: string; nonce: string; issuers?: readonly string[]; now?: number },
): Record<string, unknown> {
  let claims: Record<string, unknown>;
  try {
    claims = decodeIdToken(tokens.idToken()) as Record<string, unknown>;
  } catch (error) {
    throw new OAuthError("INVALID_ID_TOKEN", { cause: error });
  }
  const nowSeconds = (input.now ?? Date.now()) / 1000;
  const valid =
    audienceIncludes(claims.aud, input.clientId) &&
    claims.nonce === input.nonce &&
    typeof claims.exp === "number" &&
    claims.exp > nowSeconds &&
    typeof claims.sub === "string" &&
    (input.issuers === undefined ||
      (typeof claims.iss === "string" && input.issuers.includes(claims.iss)));
  if (!valid) throw new OAuthError("INVALID_ID_TOKEN");
  return claims;
}

/**
 * Builds an `OAuthProvider` from a definition: the authorization URL and
 * the code exchange go through arctic's `OAuth2Client` (client secret sent
 * as HTTP Basic), the identity step through `definition.identity`.
 */
export function defineProvider(
  definition: ProviderDefinition,
  options: OAuthProviderOptions,
): OAuthProvider {
  const client = new OAuth2Client(options.clientId, options.clientSecret, options.redirectURI);
  const configuredScopes = options.scopes ?? definition.defaultScopes;
  return {
    id: definition.id,
    name: definition.name,
    responseMode: "query",
    createAuthorizationURL({ state, codeVerifier, nonce, scopes }) {
      const list = scopes ?? configuredScopes;
      const url = definition.pkce
        ? client.createAuthorizationURLWithPKCE(
            definition.authorizationEndpoint,
            state,
            CodeChallengeMethod.S256,
            codeVerifier,
            [],
          )
        : client.createAuthorizationURL(definition.authorizationEndpoint, state, []);
      if (list.length > 0)
        url.searchParams.set("scope", list.join(definition.scopeSeparator ?? " "));
      if (definition.nonce === true) url.searchParams.set("nonce", nonce);
      for (const [key, value] of Object.entries(definition.authorizationParams ?? {})) {
        url.searchParams.set(key, value);
      }
      return url;
    },
    async validateCallback({ code, codeVerifier, nonce }) {
      let tokens: OAuth2Tokens;
      let accessToken: string;
      try {
        tokens = await client.validateAuthorizationCode(
          definition.tokenEndpoint,
          code,
          definition.pkce ? codeVerifier : null,
        );
        // GitHub answers a bad code with 200 and an `error` field.
        if ("error" in tokens.data) throw new OAuthError("PROVIDER_DENIED");
        accessToken = tokens.accessToken();
      } catch (error) {
        throw exchangeError(error);
      }
      const identity = await definition.identity({
        tokens,
        nonce,
        getJSON: (url, schema, headers) => getJSON(url, accessToken, schema, headers),
        idTokenClaims: (issuers) =>
          checkedIdTokenClaims(tokens, {
            clientId: options.clientId,
            nonce,
            ...(issuers !== undefined && { issuers }),
          }),
      });
      return { provider: definition.id, ...identity };
    },
  };
}

/** Drops `undefined`, null and empty optional fields, so identities compare cleanly. */
export function optionalFields(fields: {
  name?: string | null | undefined;
  avatarUrl?: string | null | undefined;
}): { name?: string; avatarUrl?: string } {
  return {
    ...(typeof fields.name === "string" && fields.name !== "" && { name: fields.name }),
    ...(typeof fields.avatarUrl === "string" &&
      fields.avatarUrl !== "" && { avatarUrl: fields.avatarUrl }),
  };
}
