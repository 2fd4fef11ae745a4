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
import { requestTokensWithBody } from "./token-request.js";

/** How long a user-info call may take before it counts as a provider failure. */
const USER_INFO_TIMEOUT_MS = 10_000;

/** What a provider's identity step gets: the tokens and helpers bound to the provider. */
export interface IdentityContext {
  readonly tokens: OAuth2Tokens;
  readonly nonce: string;
  /** Every parameter of the callback (Apple's `user`); empty when the caller passed none. */
  readonly params: Readonly<Record<string, string>>;
  /** GETs `url` with the access token as a bearer and parses the JSON with `schema`. */
  getJSON<T>(url: string, schema: z.ZodType<T>, headers?: Record<string, string>): Promise<T>;
  /**
   * POSTs `body` as JSON (`null` sends the literal `null`, as Dropbox's
   * argument-less RPC calls expect) with the access token as a bearer and
   * parses the answer with `schema`.
   */
  postJSON<T>(
    url: string,
    body: unknown,
    schema: z.ZodType<T>,
    headers?: Record<string, string>,
  ): Promise<T>;
  /** The ID token's claims, after checking `aud` (the client id), `nonce` and `iss` when given. */
  idTokenClaims(issuers?: readonly string[]): Record<string, unknown>;
}

/** How the client authenticates at the token endpoint. */
export interface TokenRequestOptions {
  /**
   * `basic`: HTTP Basic through arctic's `OAuth2Client` (`client_secret_basic`);
   * `body`: the client id and secret as form fields (`client_secret_post`),
   * for providers that refuse Basic.
   */
  readonly clientAuthentication: "basic" | "body";
  /**
   * Name of the client id parameter, in the authorization URL and the body
   * of the token request; default `client_id` (TikTok: `client_key`).
   */
  readonly clientIdParam?: string;
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
  /**
   * How the provider returns to the callback; default `query`. With
   * `form_post` the authorization URL asks for `response_mode=form_post`.
   */
  readonly responseMode?: "query" | "form_post";
  /** Client authentication at the token endpoint; default HTTP Basic. */
  readonly tokenRequest?: TokenRequestOptions;
  /**
   * Produces the client secret for each token exchange (Apple's freshly
   * minted JWT); default the `clientSecret` of the options.
   */
  readonly clientSecret?: () => Promise<string>;
  identity(context: IdentityContext): Promise<Omit<OAuthIdentity, "provider">>;
}

/**
 * `base` with the provider's override for `role` when the options carry one:
 * `endpoint(options, "api", "https://api.github.com")`.
 */
export function endpoint(
  options: Pick<OAuthProviderOptions, "endpoints">,
  role: string,
  base: string,
): string {
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
  return requestJSON(url, accessToken, schema, { method: "GET", headers });
}

/** POSTs a JSON body with a bearer token; any failure becomes `PROVIDER_ERROR`. */
export async function postJSON<T>(
  url: string,
  accessToken: string,
  body: unknown,
  schema: z.ZodType<T>,
  headers: Record<string, string> = {},
): Promise<T> {
  return requestJSON(url, accessToken, schema, {
    method: "POST",
    headers: { "Content-Type": "application/json", ...headers },
    body: JSON.stringify(body),
  });
}

async function requestJSON<T>(
  url: string,
  accessToken: string,
  schema: z.ZodType<T>,
  request: { method: "GET" | "POST"; headers: Record<string, string>; body?: string },
): Promise<T> {
  let response: Response;
  try {
    response = await fetch(url, {
      method: request.method,
      headers: {
        Accept: "application/json",
        "User-Agent": "svc",
        ...request.headers,
        Authorization: `Bearer ${accessToken}`,
      },
      ...(request.body !== undefined && { body: request.body }),
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

/** The options `defineProvider` needs; the secret may come from `definition.clientSecret`. */
export type DefineProviderOptions = Omit<OAuthProviderOptions, "clientSecret"> & {
  readonly clientSecret?: string;
};

/**
 * Builds an `OAuthProvider` from a definition: the authorization URL goes
 * through arctic's `OAuth2Client`; the code exchange too (client secret as
 * HTTP Basic) unless the definition asks for the credentials in the form
 * body; the identity step through `definition.identity`.
 */
export function defineProvider(
  definition: ProviderDefinition,
  options: DefineProviderOptions,
): OAuthProvider {
  const client = new OAuth2Client(options.clientId, null, options.redirectURI);
  const configuredScopes = options.scopes ?? definition.defaultScopes;
  const clientIdParam = definition.tokenRequest?.clientIdParam ?? "client_id";
  const responseMode = definition.responseMode ?? "query";
  const clientSecret = definition.clientSecret ?? staticSecret(definition.id, options.clientSecret);
  return {
    id: definition.id,
    name: definition.name,
    responseMode,
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
      if (clientIdParam !== "client_id") {
        url.searchParams.delete("client_id");
        url.searchParams.set(clientIdParam, options.clientId);
      }
      if (list.length > 0)
        url.searchParams.set("scope", list.join(definition.scopeSeparator ?? " "));
      if (definition.nonce === true) url.searchParams.set("nonce", nonce);
      if (responseMode === "form_post") url.searchParams.set("response_mode", "form_post");
      for (const [key, value] of Object.entries(definition.authorizationParams ?? {})) {
        url.searchParams.set(key, value);
      }
      return url;
    },
    async validateCallback({ code, codeVerifier, nonce, params }) {
      let tokens: OAuth2Tokens;
      let accessToken: string;
      try {
        const verifier = definition.pkce ? codeVerifier : null;
        const secret = await clientSecret();
        tokens =
          definition.tokenRequest?.clientAuthentication === "body"
            ? await requestTokensWithBody({
                tokenEndpoint: definition.tokenEndpoint,
                clientId: options.clientId,
                clientSecret: secret,
                clientIdParam,
                code,
                redirectURI: options.redirectURI,
                codeVerifier: verifier,
              })
            : await new OAuth2Client(
                options.clientId,
                secret,
                options.redirectURI,
              ).validateAuthorizationCode(definition.tokenEndpoint, code, verifier);
        // GitHub (and TikTok) answer a bad code with 200 and an `error` field.
        if ("error" in tokens.data) throw new OAuthError("PROVIDER_DENIED");
        accessToken = tokens.accessToken();
      } catch (error) {
        throw exchangeError(error);
      }
      const identity = await definition.identity({
        tokens,
        nonce,
        params: params ?? {},
        getJSON: (url, schema, headers) => getJSON(url, accessToken, schema, headers),
        postJSON: (url, body, schema, headers) => postJSON(url, accessToken, body, schema, headers),
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

/** The configured secret as a per-exchange source; a definition without either is a programming error. */
function staticSecret(id: string, secret: string | undefined): () => Promise<string> {
  if (secret === undefined) {
    throw new TypeError(`The ${id} provider needs a clientSecret.`);
  }
  return async () => secret;
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

/**
 * The identity an ID token's standard claims state: `sub`, `email` (the
 * address verified only when `email_verified` is true), `name` and
 * `picture`, each taken only when it is a string.
 */
export function identityFromClaims(
  claims: Readonly<Record<string, unknown>>,
): Omit<OAuthIdentity, "provider"> {
  const email = typeof claims.email === "string" ? claims.email : null;
  return {
    providerUserId: String(claims.sub),
    email,
    emailVerified: email !== null && claims.email_verified === true,
    ...optionalFields({
      name: typeof claims.name === "string" ? claims.name : undefined,
      avatarUrl: typeof claims.picture === "string" ? claims.picture : undefined,
    }),
  };
}
