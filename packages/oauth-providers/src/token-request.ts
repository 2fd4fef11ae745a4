import { OAuth2RequestError, OAuth2Tokens } from "arctic";
import { OAuthError } from "./errors.js";

/** How long a token request may take before it counts as a provider failure. */
const TOKEN_REQUEST_TIMEOUT_MS = 10_000;

/** A code exchange with the client credentials in the form body (`client_secret_post`). */
export interface BodyTokenRequest {
  readonly tokenEndpoint: string;
  readonly clientId: string;
  readonly clientSecret: string;
  /** Form field of the client id; default `client_id` (TikTok calls it `client_key`). */
  readonly clientIdParam?: string;
  readonly code: string;
  readonly redirectURI: string;
  /** The PKCE verifier, or null for providers without PKCE. */
  readonly codeVerifier: string | null;
  /** How long to wait for the answer; default 10 seconds. */
  readonly timeoutMs?: number;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function optionalText(value: unknown): string | null {
  return typeof value === "string" ? value : null;
}

/** The provider's OAuth error answer as arctic's error, kept as `cause` only. */
function oauthRequestError(body: Record<string, unknown>): OAuth2RequestError {
  return new OAuth2RequestError(
    String(body.error),
    optionalText(body.error_description),
    optionalText(body.error_uri),
    optionalText(body.state),
  );
}

/**
 * Exchanges an authorization code with the client id and secret as form
 * fields (RFC 6749 2.3.1 `client_secret_post`), for the providers that
 * refuse HTTP Basic. The answer is wrapped in arctic's `OAuth2Tokens`.
 * Failures map like `exchangeError`: a 4xx answer (or a 200, as TikTok
 * may send) with an OAuth `error` field (or Facebook's `error` object) is
 * `PROVIDER_DENIED`; an unreachable
 * or slow endpoint, a 5xx, or a body that is not a JSON object is
 * `PROVIDER_ERROR`. The provider's text and the secret stay out of the
 * message (the failure is the error's `cause`).
 *
 * @example
 * const tokens = await requestTokensWithBody({ tokenEndpoint, clientId, clientSecret, code, redirectURI, codeVerifier: null });
 */
export async function requestTokensWithBody(request: BodyTokenRequest): Promise<OAuth2Tokens> {
  const body = new URLSearchParams({
    grant_type: "authorization_code",
    code: request.code,
    redirect_uri: request.redirectURI,
    [request.clientIdParam ?? "client_id"]: request.clientId,
    client_secret: request.clientSecret,
  });
  if (request.codeVerifier !== null) body.set("code_verifier", request.codeVerifier);
  let response: Response;
  try {
    response = await fetch(request.tokenEndpoint, {
      method: "POST",
      headers: {
        "Content-Type": "application/x-www-form-urlencoded",
        Accept: "application/json",
        "User-Agent": "svc",
      },
      body,
      signal: AbortSignal.timeout(request.timeoutMs ?? TOKEN_REQUEST_TIMEOUT_MS),
    });
  } catch (error) {
    throw new OAuthError("PROVIDER_ERROR", { cause: error });
  }
  const { status } = response;
  if (status >= 500 || status < 200 || (status >= 300 && status < 400)) {
    await response.body?.cancel();
    throw new OAuthError("PROVIDER_ERROR", {
      cause: new Error(`The token endpoint answered ${status}.`),
    });
  }
  let data: unknown;
  try {
    data = await response.json();
  } catch (error) {
    throw new OAuthError("PROVIDER_ERROR", { cause: error });
  }
  if (!isRecord(data)) {
    throw new OAuthError("PROVIDER_ERROR", {
      cause: new Error(`The token endpoint answered ${status} without a JSON object.`),
    });
  }
  if (typeof data.error === "string") {
    throw new OAuthError("PROVIDER_DENIED", { cause: oauthRequestError(data) });
  }
  if (status >= 400 && isRecord(data.error)) {
    // Facebook's Graph answers a refused code with an `error` object.
    throw new OAuthError("PROVIDER_DENIED", {
      cause: new Error(`The token endpoint refused the code (${status}).`, { cause: data.error }),
    });
  }
  if (status >= 400) {
    throw new OAuthError("PROVIDER_ERROR", {
      cause: new Error(`The token endpoint answered ${status} without an OAuth error.`),
    });
  }
  return new OAuth2Tokens(data);
}
