import { closeFakeServers, startFakeServer } from "@svc/tooling/http-server";
import { afterEach, describe, expect, it } from "vitest";
import { type BuiltinProviderId, builtinProviderIds } from "../builtin-providers.js";
import { OAuthError } from "../errors.js";
import { bodyAuthCases } from "../testing/cases-body-auth.js";
import { idTokenCases } from "../testing/cases-id-token.js";
import { userInfoCases } from "../testing/cases-user-info.js";
import {
  ACCESS_TOKEN,
  allEndpoints,
  type Case,
  CLIENT_ID,
  CLIENT_SECRET,
  COMPACT_JWT,
  createTestProvider,
  NONCE,
  REDIRECT,
  STATE,
  startProvider,
  VERIFIER,
} from "../testing/provider-harness.js";

// Every built-in provider against a local fake of its endpoints: the
// authorization URL (client id, redirect, scopes, PKCE, nonce, response
// mode), the token exchange (client credentials as HTTP Basic or in the
// form body, the code and the verifier) and the mapping to an
// OAuthIdentity, including whether the provider vouches for the address.

afterEach(closeFakeServers);

const cases: Record<BuiltinProviderId, Case> = {
  ...idTokenCases,
  ...userInfoCases,
  ...bodyAuthCases,
};

const input = { state: STATE, codeVerifier: VERIFIER, nonce: NONCE };

describe("built-in providers", () => {
  it("covers every built-in id, in the specification's order", () => {
    expect(Object.keys(cases).sort()).toEqual([...builtinProviderIds].sort());
    expect(builtinProviderIds).toEqual(
      "google github apple microsoft discord slack spotify twitch twitter linkedin facebook gitlab reddit notion linear vercel zoom salesforce atlassian figma dropbox tiktok paypal kick roblox".split(
        " ",
      ),
    );
  });

  describe.each(builtinProviderIds)("%s", (id) => {
    const spec = cases[id];
    const clientIdParam = spec.clientIdParam ?? "client_id";

    it("builds the authorization URL", async () => {
      const { url, provider } = await startProvider(id, spec);
      expect(provider.id).toBe(id);
      expect(provider.responseMode).toBe(spec.responseMode ?? "query");
      const authorization = provider.createAuthorizationURL(input);
      expect(`${authorization.origin}${authorization.pathname}`).toBe(`${url}${spec.authPath}`);
      const params = authorization.searchParams;
      expect(params.get("response_type")).toBe("code");
      expect(params.get(clientIdParam)).toBe(CLIENT_ID);
      if (clientIdParam !== "client_id") expect(params.has("client_id")).toBe(false);
      expect(params.get("redirect_uri")).toBe(REDIRECT);
      expect(params.get("state")).toBe(STATE);
      expect(params.get("scope")).toBe(
        spec.scopes.length > 0 ? spec.scopes.join(spec.scopeSeparator ?? " ") : null,
      );
      expect(params.get("code_challenge_method")).toBe(spec.pkce ? "S256" : null);
      expect(params.has("code_challenge")).toBe(spec.pkce);
      expect(params.get("nonce")).toBe(spec.nonce ? NONCE : null);
      expect(params.get("response_mode")).toBe(spec.responseMode ?? null);
      for (const [key, value] of Object.entries(spec.authParams ?? {})) {
        expect(params.get(key)).toBe(value);
      }
      expect(authorization.toString()).not.toContain(CLIENT_SECRET);
      expect(authorization.toString()).not.toContain(VERIFIER);
    });

    it("takes scopes from the options and from the request", () => {
      const provider = createTestProvider(id, { scopes: ["a", "b"] });
      const separator = spec.scopeSeparator ?? " ";
      expect(provider.createAuthorizationURL(input).searchParams.get("scope")).toBe(
        `a${separator}b`,
      );
      expect(
        provider.createAuthorizationURL({ ...input, scopes: ["c"] }).searchParams.get("scope"),
      ).toBe("c");
    });

    it("exchanges the code and maps the user info", async () => {
      const { url, provider, requests } = await startProvider(id, spec);
      const identity = await provider.validateCallback({
        code: "the-code",
        codeVerifier: VERIFIER,
        nonce: NONCE,
        ...(spec.params !== undefined && { params: spec.params }),
      });
      const expected = { provider: id, ...spec.identity };
      if (expected.avatarUrl?.startsWith("FAKE"))
        expected.avatarUrl = expected.avatarUrl.replace("FAKE", url);
      expect(identity).toEqual(expected);
      const exchange = requests.find((request) => request.path === spec.tokenPath);
      expect(exchange?.method).toBe("POST");
      expect(exchange?.headers["content-type"]).toBe("application/x-www-form-urlencoded");
      const body = new URLSearchParams(exchange?.body);
      if (spec.tokenAuth === "body") {
        expect(exchange?.headers.authorization).toBeUndefined();
        expect(body.get(clientIdParam)).toBe(CLIENT_ID);
        const secret = body.get("client_secret");
        if (spec.mintedSecret === true) {
          expect(secret).toMatch(COMPACT_JWT);
        } else {
          expect(secret).toBe(CLIENT_SECRET);
        }
      } else {
        expect(exchange?.headers.authorization).toBe(
          `Basic ${Buffer.from(`${CLIENT_ID}:${CLIENT_SECRET}`).toString("base64")}`,
        );
        expect(body.has("client_secret")).toBe(false);
      }
      expect(body.get("grant_type")).toBe("authorization_code");
      expect(body.get("code")).toBe("the-code");
      expect(body.get("redirect_uri")).toBe(REDIRECT);
      expect(body.get("code_verifier")).toBe(spec.pkce ? VERIFIER : null);
      // The user-info calls carry the access token; no request carries the secret elsewhere.
      for (const request of requests.filter((request) => request !== exchange)) {
        expect(request.headers.authorization).toBe(`Bearer ${ACCESS_TOKEN}`);
        expect(`${request.path}${request.body}`).not.toContain(CLIENT_SECRET);
      }
    });

    it("reports a refused code as PROVIDER_DENIED without the provider's text", async () => {
      const { provider } = await startProvider(id, spec, {
        tokenReply: {
          status: 400,
          body: JSON.stringify({
            error: "invalid_grant",
            error_description: `secret detail ${CLIENT_SECRET}`,
          }),
        },
      });
      const error = await provider
        .validateCallback({ code: "bad", codeVerifier: VERIFIER, nonce: NONCE })
        .catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(OAuthError);
      expect(error).toMatchObject({ code: "PROVIDER_DENIED", status: 400, expose: true });
      expect((error as Error).message).not.toContain("secret detail");
      expect((error as Error).message).not.toContain(CLIENT_SECRET);
    });

    it("reports a failing token endpoint as PROVIDER_ERROR", async () => {
      const { provider } = await startProvider(id, spec, {
        tokenReply: { status: 503, body: `upstream down ${CLIENT_SECRET}` },
      });
      const error = await provider
        .validateCallback({ code: "c", codeVerifier: VERIFIER, nonce: NONCE })
        .catch((caught: unknown) => caught);
      expect(error).toMatchObject({ code: "PROVIDER_ERROR", status: 502 });
      expect((error as Error).message).not.toContain(CLIENT_SECRET);
    });
  });

  // The user-info step of the providers that make one.
  const withUserInfo = builtinProviderIds.filter((id) => Object.keys(cases[id].routes).length > 0);

  it.each(withUserInfo)("%s: a failing user-info call is PROVIDER_ERROR", async (id) => {
    const spec = cases[id];
    const fake = await startFakeServer((request) =>
      request.path === spec.tokenPath
        ? {
            status: 200,
            body: JSON.stringify({ access_token: ACCESS_TOKEN, token_type: "Bearer" }),
          }
        : { status: 500, body: `${CLIENT_SECRET} leaked?` },
    );
    const provider = createTestProvider(id, { endpoints: allEndpoints(fake.url) });
    const error = await provider
      .validateCallback({ code: "c", codeVerifier: VERIFIER, nonce: NONCE })
      .catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: "PROVIDER_ERROR", status: 502 });
    expect((error as Error).message).not.toContain(CLIENT_SECRET);
    // The failure came from a user-info route, after the exchange.
    expect(fake.requests.length).toBeGreaterThan(1);
  });

  const withIdToken = builtinProviderIds.filter((id) => cases[id].idToken !== undefined);

  it.each(withIdToken)("%s: an ID token with another nonce is INVALID_ID_TOKEN", async (id) => {
    const { provider } = await startProvider(id, cases[id], { idTokenNonce: "another nonce" });
    await expect(
      provider.validateCallback({ code: "c", codeVerifier: VERIFIER, nonce: NONCE }),
    ).rejects.toMatchObject({ code: "INVALID_ID_TOKEN", status: 401 });
  });

  // The providers that can vouch for an address, answering that they do not.
  const withUnverified = builtinProviderIds.filter((id) => cases[id].unverified !== undefined);

  it.each(withUnverified)(
    "%s: an address the provider does not verify is kept unverified",
    async (id) => {
      const spec = cases[id];
      const { provider } = await startProvider(id, spec, {
        ...(spec.unverified && { variant: spec.unverified }),
      });
      const identity = await provider.validateCallback({
        code: "c",
        codeVerifier: VERIFIER,
        nonce: NONCE,
      });
      expect(identity).toMatchObject({
        provider: id,
        providerUserId: spec.identity.providerUserId,
        email: spec.identity.email,
        emailVerified: false,
      });
    },
  );
});
