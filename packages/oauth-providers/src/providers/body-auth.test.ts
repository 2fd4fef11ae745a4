import {
  closeFakeServers,
  type FakeReply,
  refusedURL,
  startFakeServer,
} from "@svc/tooling/http-server";
import { OAuth2RequestError } from "arctic";
import { afterEach, describe, expect, it } from "vitest";
import { OAuthError } from "../errors.js";
import {
  ACCESS_TOKEN,
  CLIENT_ID,
  CLIENT_SECRET,
  createTestProvider,
  NONCE,
  REDIRECT,
  VERIFIER,
} from "../testing/provider-harness.js";
import { requestTokensWithBody } from "../token-request.js";

// The code exchange with the client credentials in the form body
// (client_secret_post): the form it sends and how each kind of failure
// maps to a wire error that carries neither the secret nor the provider's
// text.

afterEach(closeFakeServers);

async function exchange(
  reply: FakeReply,
  extra: { timeoutMs?: number; clientIdParam?: string } = {},
) {
  const fake = await startFakeServer(() => reply);
  const result = requestTokensWithBody({
    tokenEndpoint: `${fake.url}/token`,
    clientId: CLIENT_ID,
    clientSecret: CLIENT_SECRET,
    code: "the-code",
    redirectURI: REDIRECT,
    codeVerifier: VERIFIER,
    ...extra,
  });
  return { fake, result };
}

async function failure(promise: Promise<unknown>): Promise<OAuthError> {
  const error = await promise.catch((caught: unknown) => caught);
  if (!(error instanceof OAuthError))
    throw new Error(`expected an OAuthError, got ${String(error)}`);
  expect(error.message).not.toContain(CLIENT_SECRET);
  expect(error.message).not.toContain("detail from the provider");
  return error;
}

describe("requestTokensWithBody", () => {
  it("posts the code, the verifier and the client credentials as form fields", async () => {
    const { fake, result } = await exchange({
      status: 200,
      body: JSON.stringify({ access_token: ACCESS_TOKEN, token_type: "Bearer" }),
    });
    expect((await result).accessToken()).toBe(ACCESS_TOKEN);
    const [request] = fake.requests;
    expect(request).toMatchObject({ method: "POST", path: "/token" });
    expect(request?.headers).toMatchObject({
      "content-type": "application/x-www-form-urlencoded",
      accept: "application/json",
    });
    expect(request?.headers.authorization).toBeUndefined();
    expect(Object.fromEntries(new URLSearchParams(request?.body))).toEqual({
      grant_type: "authorization_code",
      code: "the-code",
      redirect_uri: REDIRECT,
      client_id: CLIENT_ID,
      client_secret: CLIENT_SECRET,
      code_verifier: VERIFIER,
    });
  });

  it("names the client id as asked and leaves out a null verifier", async () => {
    const fake = await startFakeServer(() => ({
      status: 200,
      body: JSON.stringify({ access_token: ACCESS_TOKEN }),
    }));
    await requestTokensWithBody({
      tokenEndpoint: fake.url,
      clientId: CLIENT_ID,
      clientSecret: CLIENT_SECRET,
      clientIdParam: "client_key",
      code: "c",
      redirectURI: REDIRECT,
      codeVerifier: null,
    });
    const form = new URLSearchParams(fake.requests[0]?.body);
    expect(form.get("client_key")).toBe(CLIENT_ID);
    expect(form.has("client_id")).toBe(false);
    expect(form.has("code_verifier")).toBe(false);
  });

  it.each([
    [400, { error: "invalid_grant", error_description: "detail from the provider" }],
    [401, { error: "invalid_client", error_description: "detail from the provider" }],
    // TikTok (and GitHub) may answer a refused code with 200.
    [200, { error: "invalid_grant", error_description: "detail from the provider" }],
  ])("maps %i with an OAuth error to PROVIDER_DENIED", async (status, body) => {
    const { result } = await exchange({ status, body: JSON.stringify(body) });
    const error = await failure(result);
    expect(error).toMatchObject({ code: "PROVIDER_DENIED", status: 400 });
    expect(error.cause).toBeInstanceOf(OAuth2RequestError);
    expect(error.cause).toMatchObject({ code: body.error });
  });

  it("maps Facebook's error object to PROVIDER_DENIED", async () => {
    const { result } = await exchange({
      status: 400,
      body: JSON.stringify({
        error: { message: "detail from the provider", type: "OAuthException", code: 100 },
      }),
    });
    expect(await failure(result)).toMatchObject({ code: "PROVIDER_DENIED" });
  });

  it.each<[string, FakeReply]>([
    ["a 500", { status: 500, body: JSON.stringify({ error: "server_error" }) }],
    ["a 503 page", { status: 503, body: "<html>detail from the provider</html>" }],
    ["a 400 without an OAuth error", { status: 400, body: JSON.stringify({ message: "x" }) }],
    ["a 400 that is not JSON", { status: 400, body: "detail from the provider" }],
    ["a 200 that is not JSON", { status: 200, body: "detail from the provider" }],
    ["a 200 array", { status: 200, body: "[]" }],
  ])("maps %s to PROVIDER_ERROR", async (_, reply) => {
    const { result } = await exchange(reply);
    expect(await failure(result)).toMatchObject({ code: "PROVIDER_ERROR", status: 502 });
  });

  it("gives up on a hanging endpoint after its timeout", async () => {
    const started = Date.now();
    const { fake, result } = await exchange("hang", { timeoutMs: 500 });
    expect(await failure(result)).toMatchObject({ code: "PROVIDER_ERROR" });
    expect(fake.requests).toHaveLength(1);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it("maps a refused connection to PROVIDER_ERROR, through a provider too", async () => {
    const url = await refusedURL();
    const direct = requestTokensWithBody({
      tokenEndpoint: `${url}/token`,
      clientId: CLIENT_ID,
      clientSecret: CLIENT_SECRET,
      code: "c",
      redirectURI: REDIRECT,
      codeVerifier: null,
    });
    expect(await failure(direct)).toMatchObject({ code: "PROVIDER_ERROR" });
    for (const id of ["linkedin", "twitch", "kick", "tiktok"] as const) {
      const provider = createTestProvider(id, {
        endpoints: { web: url, api: url, id: url, graph: url, auth: url },
      });
      const viaProvider = provider.validateCallback({
        code: "c",
        codeVerifier: VERIFIER,
        nonce: NONCE,
      });
      expect(await failure(viaProvider)).toMatchObject({ code: "PROVIDER_ERROR" });
    }
  });
});
