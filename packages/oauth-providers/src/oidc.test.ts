import { createHash } from "node:crypto";
import { OAuth2Server } from "oauth2-mock-server";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { parseOAuthConfig, prepareOAuthProviders } from "./config.js";
import { OAuthError } from "./errors.js";
import { createOIDCProvider, type OIDCProvider } from "./oidc.js";
import { createHandshakeValues } from "./state-store.js";

// The generic OpenID Connect adapter end to end against a real local
// OAuth2/OIDC server (oauth2-mock-server on 127.0.0.1): discovery, the
// authorization redirect with state, nonce and an S256 PKCE challenge, the
// code exchange and the ID token verified against the server's key set.

const CLIENT_ID = "svc-test-client";
const CLIENT_SECRET = "svc-test-secret";
const REDIRECT = "http://127.0.0.1:1/api/auth/callback/mock";

let server: OAuth2Server;
let issuer: string;

beforeEach(async () => {
  server = new OAuth2Server();
  await server.issuer.keys.generate("RS256");
  await server.start(0, "127.0.0.1");
  issuer = `http://127.0.0.1:${server.address().port}`;
  server.issuer.url = issuer;
});

afterEach(async () => {
  await server.stop();
});

function provider(overrides: { fetch?: typeof fetch } = {}): OIDCProvider {
  return createOIDCProvider({
    id: "mock",
    issuer,
    clientId: CLIENT_ID,
    clientSecret: CLIENT_SECRET,
    redirectURI: REDIRECT,
    ...overrides,
  });
}

/** Follows the authorization URL as a browser would and returns the callback's query. */
async function authorize(url: URL): Promise<URLSearchParams> {
  const response = await fetch(url, { redirect: "manual" });
  expect(response.status).toBe(302);
  const location = new URL(response.headers.get("location") ?? "");
  expect(`${location.origin}${location.pathname}`).toBe(REDIRECT);
  return location.searchParams;
}

/** The mock's provider, its discovery document read. */
async function readyProvider(): Promise<OIDCProvider> {
  const oidc = provider();
  await oidc.ready();
  return oidc;
}

/**
 * One whole sign-in with `oidc`: the browser's trip through the mock's
 * authorization endpoint, then the callback validated with the handshake's
 * values (or another `nonce`).
 */
async function handshake(
  oidc: Pick<OIDCProvider, "createAuthorizationURL" | "validateCallback">,
  nonce?: string,
) {
  const values = createHandshakeValues();
  const callback = await authorize(oidc.createAuthorizationURL(values));
  return oidc.validateCallback({
    code: callback.get("code") ?? "",
    codeVerifier: values.codeVerifier,
    nonce: nonce ?? values.nonce,
  });
}

/** Changes one claim of a JWT without re-signing it. */
function tamper(jwt: string): string {
  const [header, payload, signature] = jwt.split(".");
  const claims = JSON.parse(Buffer.from(payload ?? "", "base64url").toString("utf8"));
  claims.sub = "mallory";
  return [header, Buffer.from(JSON.stringify(claims)).toString("base64url"), signature].join(".");
}

describe("createOIDCProvider", () => {
  it("runs the authorization code flow with PKCE and a nonce and verifies the ID token", async () => {
    server.service.on("beforeTokenSigning", (token) => {
      token.payload.email = "ada@corp.example";
      token.payload.email_verified = true;
      token.payload.name = "Ada";
    });
    const oidc = provider();
    await oidc.ready();
    const values = createHandshakeValues();
    const url = oidc.createAuthorizationURL(values);
    expect(url.origin).toBe(issuer);
    expect(url.searchParams.get("state")).toBe(values.state);
    expect(url.searchParams.get("nonce")).toBe(values.nonce);
    expect(url.searchParams.get("client_id")).toBe(CLIENT_ID);
    expect(url.searchParams.get("scope")).toBe("openid email profile");
    expect(url.searchParams.get("code_challenge_method")).toBe("S256");
    expect(url.searchParams.get("code_challenge")).toBe(
      createHash("sha256").update(values.codeVerifier).digest("base64url"),
    );

    const callback = await authorize(url);
    expect(callback.get("state")).toBe(values.state);
    const identity = await oidc.validateCallback({
      code: callback.get("code") ?? "",
      codeVerifier: values.codeVerifier,
      nonce: values.nonce,
    });
    expect(identity).toEqual({
      provider: "mock",
      providerUserId: "johndoe",
      email: "ada@corp.example",
      emailVerified: true,
      name: "Ada",
    });
  });

  it("reads the discovery document once", async () => {
    const urls: string[] = [];
    const counting: typeof fetch = (input, init) => {
      urls.push(String(input instanceof Request ? input.url : input));
      return fetch(input, init);
    };
    const oidc = provider({ fetch: counting });
    await Promise.all([oidc.ready(), oidc.ready()]);
    await handshake(oidc);
    expect(urls.filter((url) => url.endsWith("/.well-known/openid-configuration"))).toHaveLength(1);
  });

  it("refuses a tampered ID token", async () => {
    server.service.on("beforeResponse", (response) => {
      const body = response.body as Record<string, unknown>;
      if (typeof body.id_token === "string") body.id_token = tamper(body.id_token);
    });
    await expect(handshake(await readyProvider())).rejects.toMatchObject({
      code: "INVALID_ID_TOKEN",
      status: 401,
    });
  });

  it("refuses an ID token whose nonce is not the handshake's", async () => {
    const error = await handshake(await readyProvider(), "another handshake's nonce").catch(
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(OAuthError);
    expect(error).toMatchObject({ code: "INVALID_ID_TOKEN" });
  });

  it("refuses an expired ID token", async () => {
    server.service.on("beforeTokenSigning", (token) => {
      token.payload.exp = Math.floor(Date.now() / 1000) - 600;
    });
    await expect(handshake(await readyProvider())).rejects.toMatchObject({
      code: "INVALID_ID_TOKEN",
    });
  });

  it("refuses an ID token issued for another client", async () => {
    server.service.on("beforeTokenSigning", (token) => {
      token.payload.aud = "another-client";
    });
    await expect(handshake(await readyProvider())).rejects.toMatchObject({
      code: "INVALID_ID_TOKEN",
    });
  });

  it("is built from the environment and discovered by prepareOAuthProviders", async () => {
    const [oidc, ...rest] = parseOAuthConfig({
      SVC_OIDC_MOCK_ISSUER: issuer,
      SVC_OIDC_MOCK_CLIENT_ID: CLIENT_ID,
      SVC_OIDC_MOCK_CLIENT_SECRET: CLIENT_SECRET,
      SVC_OIDC_MOCK_REDIRECT: REDIRECT,
    });
    expect(rest).toEqual([]);
    if (oidc === undefined) throw new Error("not enabled");
    await prepareOAuthProviders([oidc]);
    const identity = await handshake(oidc);
    expect(identity).toMatchObject({ provider: "mock", providerUserId: "johndoe", email: null });
  });

  it("refuses a discovery document naming another issuer", async () => {
    server.service.on("beforeWellKnownOpenIdConfiguration", (response) => {
      (response.body as Record<string, unknown>).issuer = "https://evil.example";
    });
    await expect(provider().ready()).rejects.toMatchObject({ code: "PROVIDER_ERROR", status: 502 });
  });

  it("reports an unreachable issuer as PROVIDER_ERROR and retries later", async () => {
    const oidc = createOIDCProvider({
      id: "down",
      issuer: "http://127.0.0.1:1",
      clientId: CLIENT_ID,
      clientSecret: CLIENT_SECRET,
      redirectURI: REDIRECT,
    });
    await expect(oidc.ready()).rejects.toMatchObject({ code: "PROVIDER_ERROR" });
    expect(() => oidc.createAuthorizationURL(createHandshakeValues())).toThrow(TypeError);
  });
});
