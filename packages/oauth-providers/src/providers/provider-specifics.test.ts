import { closeFakeServers, type RecordedRequest, startFakeServer } from "@svc/tooling/http-server";
import { afterEach, describe, expect, it } from "vitest";
import { builtinProviders } from "../builtin-providers.js";
import { bodyAuthCases } from "../testing/cases-body-auth.js";
import { googleClaims, idTokenCases } from "../testing/cases-id-token.js";
import { userInfoCases } from "../testing/cases-user-info.js";
import {
  ACCESS_TOKEN,
  allEndpoints,
  CLIENT_ID,
  CLIENT_SECRET,
  createTestProvider,
  idTokenFor,
  NONCE,
  REDIRECT,
  STATE,
  startProvider,
  VERIFIER,
} from "../testing/provider-harness.js";

// What single providers do beyond the shared table: GitHub's primary
// address and 200 errors, the Microsoft tenant, ID token audiences, and the
// request shapes and odd answers of the newer providers.

afterEach(closeFakeServers);

const callback = { code: "c", codeVerifier: VERIFIER, nonce: NONCE };
const tokenAnswer = {
  status: 200,
  body: JSON.stringify({ access_token: ACCESS_TOKEN, token_type: "Bearer" }),
};

/** A fake answering the token request (any POST to `tokenPath`) and `userInfo` for the rest. */
async function fakeWithUserInfo(tokenPath: string, userInfo: unknown) {
  return startFakeServer((request) =>
    request.path === tokenPath ? tokenAnswer : { status: 200, body: JSON.stringify(userInfo) },
  );
}

describe("single providers", () => {
  it("github: an unverified primary address is not verified", async () => {
    const fake = await startFakeServer((request) => {
      if (request.method === "POST") return tokenAnswer;
      if (request.path === "/user")
        return { status: 200, body: JSON.stringify({ id: 1, login: "a" }) };
      return {
        status: 200,
        body: JSON.stringify([{ email: "a@x.dev", primary: true, verified: false }]),
      };
    });
    const provider = createTestProvider("github", { endpoints: allEndpoints(fake.url) });
    const identity = await provider.validateCallback(callback);
    expect(identity).toMatchObject({ email: "a@x.dev", emailVerified: false });
  });

  it("github: a bad code answered with 200 and an error is PROVIDER_DENIED", async () => {
    const fake = await startFakeServer(() => ({
      status: 200,
      body: JSON.stringify({ error: "bad_verification_code" }),
    }));
    const provider = createTestProvider("github", { endpoints: allEndpoints(fake.url) });
    await expect(provider.validateCallback(callback)).rejects.toMatchObject({
      code: "PROVIDER_DENIED",
    });
  });

  it("microsoft: the tenant goes into the endpoints; xms_edov marks the email verified", async () => {
    const claims = { iss: "x", sub: "m", email: "a@contoso.com", xms_edov: true };
    const idToken = await idTokenFor(claims);
    const tokenFake = await startFakeServer(() => ({
      status: 200,
      body: JSON.stringify({ access_token: ACCESS_TOKEN, token_type: "Bearer", id_token: idToken }),
    }));
    const provider = builtinProviders.microsoft({
      clientId: CLIENT_ID,
      clientSecret: CLIENT_SECRET,
      redirectURI: REDIRECT,
      tenant: "contoso.onmicrosoft.com",
      endpoints: { login: tokenFake.url },
    });
    const url = provider.createAuthorizationURL({
      state: STATE,
      codeVerifier: VERIFIER,
      nonce: NONCE,
    });
    expect(url.pathname).toBe("/contoso.onmicrosoft.com/oauth2/v2.0/authorize");
    const identity = await provider.validateCallback(callback);
    expect(identity).toMatchObject({ providerUserId: "m", emailVerified: true });
  });

  it.each([
    ["google", googleClaims],
    ["vercel", idTokenCases.vercel.idToken],
    ["twitch", idTokenCases.twitch.idToken],
  ] as const)("%s: an ID token for another client is INVALID_ID_TOKEN", async (id, claims) => {
    const { provider } = await startProvider(id, idTokenCases[id], {
      tokenReply: {
        status: 200,
        body: JSON.stringify({
          access_token: ACCESS_TOKEN,
          token_type: "Bearer",
          id_token: await idTokenFor({ ...claims, aud: "someone-else" }),
        }),
      },
    });
    await expect(provider.validateCallback(callback)).rejects.toMatchObject({
      code: "INVALID_ID_TOKEN",
    });
  });

  it("twitch: an ID token from another issuer is INVALID_ID_TOKEN", async () => {
    const { provider } = await startProvider("twitch", idTokenCases.twitch, {
      variant: {
        idToken: { ...idTokenCases.twitch.idToken, iss: "https://evil.example" },
        routes: {},
      },
    });
    await expect(provider.validateCallback(callback)).rejects.toMatchObject({
      code: "INVALID_ID_TOKEN",
    });
  });

  it("dropbox and linear: the user info is a POST with a JSON body", async () => {
    const seen: Record<string, RecordedRequest | undefined> = {};
    for (const [id, spec] of [
      ["dropbox", userInfoCases.dropbox],
      ["linear", bodyAuthCases.linear],
    ] as const) {
      const { provider, requests } = await startProvider(id, spec);
      await provider.validateCallback(callback);
      seen[id] = requests.find((request) => request.path !== spec.tokenPath);
    }
    expect(seen.dropbox).toMatchObject({ method: "POST", path: "/2/users/get_current_account" });
    expect(seen.dropbox?.headers["content-type"]).toBe("application/json");
    expect(seen.dropbox?.body).toBe("null");
    expect(seen.linear).toMatchObject({ method: "POST", path: "/graphql" });
    expect(JSON.parse(seen.linear?.body ?? "{}")).toEqual({
      query: expect.stringContaining("viewer"),
    });
  });

  it("linear: a GraphQL error answer is PROVIDER_ERROR", async () => {
    const fake = await fakeWithUserInfo("/oauth/token", { errors: [{ message: "nope" }] });
    const provider = createTestProvider("linear", { endpoints: allEndpoints(fake.url) });
    await expect(provider.validateCallback(callback)).rejects.toMatchObject({
      code: "PROVIDER_ERROR",
    });
  });

  it("tiktok: the user info asks for its fields; an error code is PROVIDER_ERROR", async () => {
    const { provider, requests } = await startProvider("tiktok", bodyAuthCases.tiktok);
    await provider.validateCallback(callback);
    const info = requests.find((request) => request.path.startsWith("/v2/user/info/"));
    expect(new URL(info?.path ?? "", "http://x").searchParams.get("fields")).toBe(
      "open_id,union_id,avatar_url,display_name",
    );
    const failing = await fakeWithUserInfo("/v2/oauth/token/", {
      data: { user: { open_id: "x" } },
      error: { code: "access_token_invalid", message: "x" },
    });
    const broken = createTestProvider("tiktok", { endpoints: allEndpoints(failing.url) });
    await expect(broken.validateCallback(callback)).rejects.toMatchObject({
      code: "PROVIDER_ERROR",
    });
  });

  it("tiktok: a refused code answered with 200 and an error is PROVIDER_DENIED", async () => {
    const { provider } = await startProvider("tiktok", bodyAuthCases.tiktok, {
      tokenReply: {
        status: 200,
        body: JSON.stringify({ error: "invalid_grant", error_description: "x", log_id: "1" }),
      },
    });
    await expect(provider.validateCallback(callback)).rejects.toMatchObject({
      code: "PROVIDER_DENIED",
    });
  });

  it("kick: an empty user list is PROVIDER_ERROR", async () => {
    const fake = await fakeWithUserInfo("/oauth/token", { data: [], message: "OK" });
    const provider = createTestProvider("kick", { endpoints: allEndpoints(fake.url) });
    await expect(provider.validateCallback(callback)).rejects.toMatchObject({
      code: "PROVIDER_ERROR",
    });
  });

  it("paypal: the id is user_id, else sub, else PROVIDER_ERROR; the sandbox is a role", async () => {
    const withSub = await fakeWithUserInfo("/v1/oauth2/token", {
      sub: "pp-sub",
      email: "a@pp.dev",
    });
    const subProvider = createTestProvider("paypal", { endpoints: allEndpoints(withSub.url) });
    expect(await subProvider.validateCallback(callback)).toEqual({
      provider: "paypal",
      providerUserId: "pp-sub",
      email: "a@pp.dev",
      emailVerified: false,
    });
    const fake = await fakeWithUserInfo("/v1/oauth2/token", { email: "a@pp.dev" });
    const provider = createTestProvider("paypal", { endpoints: allEndpoints(fake.url) });
    await expect(provider.validateCallback(callback)).rejects.toMatchObject({
      code: "PROVIDER_ERROR",
    });
    const sandbox = createTestProvider("paypal", {
      endpoints: { web: "https://www.sandbox.paypal.com" },
    });
    expect(
      sandbox.createAuthorizationURL({ state: STATE, codeVerifier: VERIFIER, nonce: NONCE }).origin,
    ).toBe("https://www.sandbox.paypal.com");
  });

  it("zoom: the name falls back to first and last name", async () => {
    const fake = await fakeWithUserInfo("/oauth/token", {
      id: "z1",
      email: "a@z.dev",
      first_name: "Ada",
      last_name: "Lovelace",
      verified: 1,
    });
    const provider = createTestProvider("zoom", { endpoints: allEndpoints(fake.url) });
    expect(await provider.validateCallback(callback)).toEqual({
      provider: "zoom",
      providerUserId: "z1",
      email: "a@z.dev",
      emailVerified: true,
      name: "Ada Lovelace",
    });
  });
});
