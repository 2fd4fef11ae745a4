import { closeFakeServers, type RecordedRequest, startFakeServer } from "@svc/tooling/http-server";
import { decodeProtectedHeader, exportPKCS8, generateKeyPair, importSPKI, jwtVerify } from "jose";
import { afterEach, describe, expect, it } from "vitest";
import {
  ACCESS_TOKEN,
  APPLE_KEY_ID,
  APPLE_PRIVATE_KEY,
  APPLE_PUBLIC_KEY,
  APPLE_TEAM_ID,
  CLIENT_ID,
  COMPACT_JWT,
  idTokenFor,
  NONCE,
  REDIRECT,
  STATE,
  VERIFIER,
} from "../testing/provider-harness.js";
import { appleUserName, createAppleProvider } from "./apple.js";

// Sign in with Apple: the ES256 client secret minted per token exchange,
// form_post, the ID token's email_verified (boolean or string) and the name
// Apple posts as `user` on the first sign-in only.

afterEach(closeFakeServers);

const APPLE_AUDIENCE = "https://appleid.apple.com";
const claims = {
  iss: "https://appleid.apple.com",
  sub: "000792.ap1",
  email: "ada@privaterelay.appleid.com",
  email_verified: true,
};

/** A fake Apple whose token endpoint answers with an ID token of `idClaims`. */
async function startApple(idClaims: Record<string, unknown> = claims) {
  const idToken = await idTokenFor(idClaims);
  return startFakeServer((request) =>
    request.path === "/auth/token"
      ? {
          status: 200,
          body: JSON.stringify({
            access_token: ACCESS_TOKEN,
            token_type: "Bearer",
            id_token: idToken,
          }),
        }
      : { status: 404, body: "{}" },
  );
}

function appleFor(url: string, extra: { privateKey?: string; now?: () => number } = {}) {
  return createAppleProvider({
    clientId: CLIENT_ID,
    teamId: APPLE_TEAM_ID,
    keyId: APPLE_KEY_ID,
    privateKey: APPLE_PRIVATE_KEY,
    redirectURI: REDIRECT,
    endpoints: { appleid: url },
    ...extra,
  });
}

const callback = { code: "apple-code", codeVerifier: VERIFIER, nonce: NONCE };

function clientSecretOf(request: RecordedRequest | undefined): string {
  return new URLSearchParams(request?.body).get("client_secret") ?? "";
}

describe("Apple", () => {
  it("asks for form_post with PKCE, a nonce and the name and email scopes", () => {
    const provider = appleFor("https://appleid.apple.com");
    expect(provider).toMatchObject({ id: "apple", name: "Apple", responseMode: "form_post" });
    const url = provider.createAuthorizationURL({
      state: STATE,
      codeVerifier: VERIFIER,
      nonce: NONCE,
    });
    expect(`${url.origin}${url.pathname}`).toBe("https://appleid.apple.com/auth/authorize");
    expect(Object.fromEntries(url.searchParams)).toMatchObject({
      response_type: "code",
      response_mode: "form_post",
      client_id: CLIENT_ID,
      redirect_uri: REDIRECT,
      state: STATE,
      scope: "name email",
      nonce: NONCE,
      code_challenge_method: "S256",
    });
  });

  it("sends a fresh ES256 client secret that Apple's public key verifies", async () => {
    const keys = await generateKeyPair("ES256", { extractable: true });
    const fake = await startApple();
    let clock = Date.UTC(2026, 0, 2, 3, 4, 5);
    const provider = appleFor(fake.url, {
      privateKey: await exportPKCS8(keys.privateKey),
      now: () => clock,
    });
    await provider.validateCallback(callback);
    clock += 60_000;
    await provider.validateCallback(callback);

    const [first, second] = fake.requests;
    expect(first?.headers.authorization).toBeUndefined();
    const form = new URLSearchParams(first?.body);
    expect(Object.fromEntries(form)).toMatchObject({
      grant_type: "authorization_code",
      code: "apple-code",
      redirect_uri: REDIRECT,
      client_id: CLIENT_ID,
      code_verifier: VERIFIER,
    });
    const secrets = [clientSecretOf(first), clientSecretOf(second)];
    expect(secrets[0]).toMatch(COMPACT_JWT);
    expect(secrets[1]).not.toBe(secrets[0]);
    for (const [index, secret] of secrets.entries()) {
      const issuedAt = Date.UTC(2026, 0, 2, 3, 4, 5) / 1000 + index * 60;
      const { payload, protectedHeader } = await jwtVerify(secret, keys.publicKey, {
        algorithms: ["ES256"],
        issuer: APPLE_TEAM_ID,
        subject: CLIENT_ID,
        audience: APPLE_AUDIENCE,
        currentDate: new Date(issuedAt * 1000),
      });
      expect(protectedHeader).toEqual({ alg: "ES256", kid: APPLE_KEY_ID });
      expect(payload).toEqual({
        iss: APPLE_TEAM_ID,
        sub: CLIENT_ID,
        aud: APPLE_AUDIENCE,
        iat: issuedAt,
        exp: issuedAt + 300,
      });
    }
  });

  it("signs with the configured key only", async () => {
    const fake = await startApple();
    await appleFor(fake.url).validateCallback(callback);
    const secret = clientSecretOf(fake.requests[0]);
    expect(decodeProtectedHeader(secret).kid).toBe(APPLE_KEY_ID);
    const publicKey = await importSPKI(APPLE_PUBLIC_KEY, "ES256");
    await expect(jwtVerify(secret, publicKey)).resolves.toBeDefined();
    const other = await generateKeyPair("ES256");
    await expect(jwtVerify(secret, other.publicKey)).rejects.toThrow();
  });

  it("reports a key that cannot sign as PROVIDER_ERROR without the key, before any request", async () => {
    const fake = await startApple();
    const broken = "-----BEGIN PRIVATE KEY-----\nnot-a-key-material\n-----END PRIVATE KEY-----";
    const error = await appleFor(fake.url, { privateKey: broken })
      .validateCallback(callback)
      .catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: "PROVIDER_ERROR", status: 502 });
    expect((error as Error).message).not.toContain("not-a-key-material");
    expect(fake.requests).toHaveLength(0);
  });

  it.each([
    [true, true],
    ["true", true],
    [false, false],
    ["false", false],
    [undefined, false],
    ["yes", false],
  ])("reads email_verified %j as %s", async (flag, verified) => {
    const fake = await startApple({ ...claims, email_verified: flag });
    const identity = await appleFor(fake.url).validateCallback(callback);
    expect(identity).toEqual({
      provider: "apple",
      providerUserId: "000792.ap1",
      email: "ada@privaterelay.appleid.com",
      emailVerified: verified,
    });
  });

  it("has no email when the ID token carries none", async () => {
    const { email: _, ...withoutEmail } = claims;
    const fake = await startApple(withoutEmail);
    const identity = await appleFor(fake.url).validateCallback(callback);
    expect(identity).toMatchObject({ email: null, emailVerified: false });
  });

  it("refuses an ID token from another issuer", async () => {
    const fake = await startApple({ ...claims, iss: "https://evil.example" });
    await expect(appleFor(fake.url).validateCallback(callback)).rejects.toMatchObject({
      code: "INVALID_ID_TOKEN",
    });
  });

  it.each([
    [
      { user: JSON.stringify({ name: { firstName: "Ada", lastName: "Lovelace" }, email: "x@y" }) },
      "Ada Lovelace",
    ],
    [{ user: JSON.stringify({ name: { firstName: " Ada " } }) }, "Ada"],
    [{ user: "{not json" }, undefined],
    [{ user: JSON.stringify({ name: "Ada" }) }, undefined],
    [{ user: JSON.stringify({ name: { firstName: "", lastName: null } }) }, undefined],
    [{ state: "s" }, undefined],
    [undefined, undefined],
  ])("takes the name from the first sign-in's user parameter: %j", async (params, name) => {
    const user: string | undefined =
      params !== undefined && "user" in params ? params.user : undefined;
    expect(appleUserName(user)).toBe(name);
    const fake = await startApple();
    const identity = await appleFor(fake.url).validateCallback({
      ...callback,
      ...(params !== undefined && { params }),
    });
    expect(identity.name).toBe(name);
    // The address inside `user` is unsigned: only the ID token's counts.
    expect(identity.email).toBe(claims.email);
  });
});
