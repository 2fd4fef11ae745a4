import { SignJWT } from "jose";
import { afterEach, describe, expect, it } from "vitest";
import {
  type BuiltinProviderId,
  builtinProviderIds,
  builtinProviders,
} from "../builtin-providers.js";
import { OAuthError } from "../errors.js";
import type { OAuthIdentity, OAuthProvider } from "../provider.js";
import { closeFakeServers, type FakeReply, startFakeServer } from "../test-http-server.js";

// Every built-in provider against a local fake of its endpoints: the
// authorization URL (client id, redirect, scopes, PKCE, nonce), the token
// exchange through arctic (HTTP Basic client credentials, the code and the
// verifier) and the user-info mapping to an OAuthIdentity.

afterEach(closeFakeServers);

const CLIENT_ID = "client-id-123";
const CLIENT_SECRET = "client-secret-never-leaked";
const REDIRECT = "https://app.example/api/auth/callback/x";
const STATE = "state-abc";
const VERIFIER = "v".repeat(43);
const NONCE = "nonce-xyz";
const ACCESS_TOKEN = "access-token-1";

/** Every endpoint role any provider has, all pointed at the fake. */
const ROLES = ["accounts", "token", "web", "api", "login", "discord", "cdn", "gitlab", "slack"];

interface Case {
  readonly authPath: string;
  readonly tokenPath: string;
  readonly pkce: boolean;
  readonly nonce: boolean;
  readonly scopes: readonly string[];
  /** Claims of the ID token the token endpoint returns, if any. */
  readonly idToken?: Record<string, unknown>;
  /** Extra fields of the token response. */
  readonly tokenExtra?: Record<string, unknown>;
  /** GET path (without query) to JSON body. */
  readonly routes: Record<string, unknown>;
  readonly identity: Omit<OAuthIdentity, "provider">;
}

const googleClaims = {
  iss: "https://accounts.google.com",
  sub: "g-1",
  email: "ada@gmail.com",
  email_verified: true,
  name: "Ada",
  picture: "https://img/ada.png",
};

const cases: Record<BuiltinProviderId, Case> = {
  google: {
    authPath: "/o/oauth2/v2/auth",
    tokenPath: "/token",
    pkce: true,
    nonce: true,
    scopes: ["openid", "email", "profile"],
    idToken: googleClaims,
    routes: {},
    identity: {
      providerUserId: "g-1",
      email: "ada@gmail.com",
      emailVerified: true,
      name: "Ada",
      avatarUrl: "https://img/ada.png",
    },
  },
  github: {
    authPath: "/login/oauth/authorize",
    tokenPath: "/login/oauth/access_token",
    pkce: true,
    nonce: false,
    scopes: ["read:user", "user:email"],
    routes: {
      "/user": { id: 42, login: "ada", name: null, avatar_url: "https://gh/a.png", email: null },
      "/user/emails": [
        { email: "other@x.dev", primary: false, verified: true },
        { email: "ada@x.dev", primary: true, verified: true },
      ],
    },
    identity: {
      providerUserId: "42",
      email: "ada@x.dev",
      emailVerified: true,
      name: "ada",
      avatarUrl: "https://gh/a.png",
    },
  },
  microsoft: {
    authPath: "/common/oauth2/v2.0/authorize",
    tokenPath: "/common/oauth2/v2.0/token",
    pkce: true,
    nonce: true,
    scopes: ["openid", "email", "profile"],
    idToken: {
      iss: "https://login.microsoftonline.com/t/v2.0",
      sub: "ms-1",
      email: "ada@contoso.com",
      name: "Ada",
    },
    routes: {},
    // Entra asserted nothing about the address: not verified.
    identity: {
      providerUserId: "ms-1",
      email: "ada@contoso.com",
      emailVerified: false,
      name: "Ada",
    },
  },
  discord: {
    authPath: "/oauth2/authorize",
    tokenPath: "/api/oauth2/token",
    pkce: true,
    nonce: false,
    scopes: ["identify", "email"],
    routes: {
      "/api/users/@me": {
        id: "80351110224678912",
        username: "ada",
        global_name: "Ada L",
        avatar: "8342729096ea3675442027381ff50dfe",
        email: "ada@d.dev",
        verified: true,
      },
    },
    identity: {
      providerUserId: "80351110224678912",
      email: "ada@d.dev",
      emailVerified: true,
      name: "Ada L",
      avatarUrl: "FAKE/avatars/80351110224678912/8342729096ea3675442027381ff50dfe.png",
    },
  },
  gitlab: {
    authPath: "/oauth/authorize",
    tokenPath: "/oauth/token",
    pkce: true,
    nonce: false,
    scopes: ["read_user"],
    routes: {
      "/api/v4/user": {
        id: 7,
        username: "ada",
        name: "Ada",
        avatar_url: "https://gl/a.png",
        email: "ada@gl.dev",
        confirmed_at: "2020-01-01T00:00:00Z",
      },
    },
    identity: {
      providerUserId: "7",
      email: "ada@gl.dev",
      emailVerified: true,
      name: "Ada",
      avatarUrl: "https://gl/a.png",
    },
  },
  slack: {
    authPath: "/openid/connect/authorize",
    tokenPath: "/api/openid.connect.token",
    pkce: false,
    nonce: true,
    scopes: ["openid", "email", "profile"],
    idToken: {
      iss: "https://slack.com",
      sub: "U1",
      email: "ada@s.dev",
      email_verified: true,
      name: "Ada",
    },
    routes: {},
    identity: { providerUserId: "U1", email: "ada@s.dev", emailVerified: true, name: "Ada" },
  },
  spotify: {
    authPath: "/authorize",
    tokenPath: "/api/token",
    pkce: true,
    nonce: false,
    scopes: ["user-read-email"],
    routes: {
      "/v1/me": {
        id: "sp1",
        display_name: "Ada",
        email: "ada@sp.dev",
        images: [{ url: "https://sp/a.png" }],
      },
    },
    identity: {
      providerUserId: "sp1",
      email: "ada@sp.dev",
      emailVerified: false,
      name: "Ada",
      avatarUrl: "https://sp/a.png",
    },
  },
  twitter: {
    authPath: "/i/oauth2/authorize",
    tokenPath: "/2/oauth2/token",
    pkce: true,
    nonce: false,
    scopes: ["users.read", "tweet.read"],
    routes: { "/2/users/me": { data: { id: "tw1", name: "Ada", username: "ada" } } },
    identity: { providerUserId: "tw1", email: null, emailVerified: false, name: "Ada" },
  },
  reddit: {
    authPath: "/api/v1/authorize",
    tokenPath: "/api/v1/access_token",
    pkce: false,
    nonce: false,
    scopes: ["identity"],
    routes: { "/api/v1/me": { id: "rd1", name: "ada", icon_img: "https://rd/a.png?x=1" } },
    identity: {
      providerUserId: "rd1",
      email: null,
      emailVerified: false,
      name: "ada",
      avatarUrl: "https://rd/a.png",
    },
  },
  notion: {
    authPath: "/v1/oauth/authorize",
    tokenPath: "/v1/oauth/token",
    pkce: false,
    nonce: false,
    scopes: [],
    tokenExtra: {
      owner: { type: "user", user: { id: "n1", name: "Ada", person: { email: "ada@n.dev" } } },
    },
    routes: {},
    identity: { providerUserId: "n1", email: "ada@n.dev", emailVerified: false, name: "Ada" },
  },
  figma: {
    authPath: "/oauth",
    tokenPath: "/v1/oauth/token",
    pkce: true,
    nonce: false,
    scopes: ["current_user:read"],
    routes: {
      "/v1/me": { id: "f1", handle: "ada", email: "ada@f.dev", img_url: "https://f/a.png" },
    },
    identity: {
      providerUserId: "f1",
      email: "ada@f.dev",
      emailVerified: false,
      name: "ada",
      avatarUrl: "https://f/a.png",
    },
  },
  salesforce: {
    authPath: "/services/oauth2/authorize",
    tokenPath: "/services/oauth2/token",
    pkce: true,
    nonce: false,
    scopes: ["openid", "email", "profile"],
    routes: {
      "/services/oauth2/userinfo": {
        user_id: "005x",
        email: "ada@sf.dev",
        email_verified: true,
        name: "Ada",
      },
    },
    identity: { providerUserId: "005x", email: "ada@sf.dev", emailVerified: true, name: "Ada" },
  },
  roblox: {
    authPath: "/oauth/v1/authorize",
    tokenPath: "/oauth/v1/token",
    pkce: true,
    nonce: true,
    scopes: ["openid", "profile"],
    routes: { "/oauth/v1/userinfo": { sub: "rb1", name: "Ada", picture: "https://rb/a.png" } },
    identity: {
      providerUserId: "rb1",
      email: null,
      emailVerified: false,
      name: "Ada",
      avatarUrl: "https://rb/a.png",
    },
  },
};

async function idTokenFor(claims: Record<string, unknown>, nonce = NONCE): Promise<string> {
  // The built-ins read the ID token straight from the token endpoint over
  // TLS, so the signature is not what is under test here.
  return new SignJWT({ aud: CLIENT_ID, nonce, ...claims })
    .setProtectedHeader({ alg: "HS256" })
    .setIssuedAt()
    .setExpirationTime("5m")
    .sign(new TextEncoder().encode("unrelated key, only decoded"));
}

interface Fake {
  readonly url: string;
  readonly provider: OAuthProvider;
  readonly requests: Awaited<ReturnType<typeof startFakeServer>>["requests"];
}

async function startProvider(
  id: BuiltinProviderId,
  tokenReply?: (fake: Case) => Promise<FakeReply> | FakeReply,
  idTokenNonce = NONCE,
): Promise<Fake> {
  const spec = cases[id];
  const token = tokenReply
    ? await tokenReply(spec)
    : {
        status: 200,
        body: JSON.stringify({
          access_token: ACCESS_TOKEN,
          token_type: "Bearer",
          ...(spec.idToken && { id_token: await idTokenFor(spec.idToken, idTokenNonce) }),
          ...spec.tokenExtra,
        }),
      };
  const fake = await startFakeServer((request) => {
    const path = request.path.split("?")[0] ?? "";
    if (request.method === "POST" && path === spec.tokenPath) return token;
    if (request.method === "GET" && path in spec.routes) {
      if (request.headers.authorization !== `Bearer ${ACCESS_TOKEN}`) return { status: 401 };
      return { status: 200, body: JSON.stringify(spec.routes[path]) };
    }
    return { status: 404, body: "{}" };
  });
  const endpoints = Object.fromEntries(ROLES.map((role) => [role, fake.url]));
  const provider = builtinProviders[id]({
    clientId: CLIENT_ID,
    clientSecret: CLIENT_SECRET,
    redirectURI: REDIRECT,
    endpoints,
  });
  return { url: fake.url, provider, requests: fake.requests };
}

describe("built-in providers", () => {
  it("covers every built-in id", () => {
    expect(Object.keys(cases).sort()).toEqual([...builtinProviderIds].sort());
  });

  describe.each(builtinProviderIds)("%s", (id) => {
    const spec = cases[id];

    it("builds the authorization URL", async () => {
      const { url, provider } = await startProvider(id);
      expect(provider.id).toBe(id);
      const authorization = provider.createAuthorizationURL({
        state: STATE,
        codeVerifier: VERIFIER,
        nonce: NONCE,
      });
      expect(`${authorization.origin}${authorization.pathname}`).toBe(`${url}${spec.authPath}`);
      const params = authorization.searchParams;
      expect(params.get("response_type")).toBe("code");
      expect(params.get("client_id")).toBe(CLIENT_ID);
      expect(params.get("redirect_uri")).toBe(REDIRECT);
      expect(params.get("state")).toBe(STATE);
      expect(params.get("scope")).toBe(spec.scopes.length > 0 ? spec.scopes.join(" ") : null);
      expect(params.get("code_challenge_method")).toBe(spec.pkce ? "S256" : null);
      expect(params.has("code_challenge")).toBe(spec.pkce);
      expect(params.get("nonce")).toBe(spec.nonce ? NONCE : null);
      expect(authorization.toString()).not.toContain(CLIENT_SECRET);
      expect(authorization.toString()).not.toContain(VERIFIER);
    });

    it("takes scopes from the options and from the request", async () => {
      const provider = builtinProviders[id]({
        clientId: CLIENT_ID,
        clientSecret: CLIENT_SECRET,
        redirectURI: REDIRECT,
        scopes: ["a", "b"],
      });
      const input = { state: STATE, codeVerifier: VERIFIER, nonce: NONCE };
      expect(provider.createAuthorizationURL(input).searchParams.get("scope")).toBe("a b");
      expect(
        provider.createAuthorizationURL({ ...input, scopes: ["c"] }).searchParams.get("scope"),
      ).toBe("c");
    });

    it("exchanges the code and maps the user info", async () => {
      const { url, provider, requests } = await startProvider(id);
      const identity = await provider.validateCallback({
        code: "the-code",
        codeVerifier: VERIFIER,
        nonce: NONCE,
      });
      const expected = { provider: id, ...spec.identity };
      if (expected.avatarUrl?.startsWith("FAKE"))
        expected.avatarUrl = expected.avatarUrl.replace("FAKE", url);
      expect(identity).toEqual(expected);
      const exchange = requests.find((request) => request.method === "POST");
      expect(exchange?.path).toBe(spec.tokenPath);
      expect(exchange?.headers.authorization).toBe(
        `Basic ${Buffer.from(`${CLIENT_ID}:${CLIENT_SECRET}`).toString("base64")}`,
      );
      const body = new URLSearchParams(exchange?.body);
      expect(body.get("grant_type")).toBe("authorization_code");
      expect(body.get("code")).toBe("the-code");
      expect(body.get("redirect_uri")).toBe(REDIRECT);
      expect(body.get("code_verifier")).toBe(spec.pkce ? VERIFIER : null);
    });

    it("reports a refused code as PROVIDER_DENIED without the provider's text", async () => {
      const { provider } = await startProvider(id, () => ({
        status: 400,
        body: JSON.stringify({ error: "invalid_grant", error_description: "secret detail" }),
      }));
      const error = await provider
        .validateCallback({ code: "bad", codeVerifier: VERIFIER, nonce: NONCE })
        .catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(OAuthError);
      expect(error).toMatchObject({ code: "PROVIDER_DENIED", status: 400, expose: true });
      expect((error as Error).message).not.toContain("secret detail");
    });

    it("reports a failing token endpoint as PROVIDER_ERROR", async () => {
      const { provider } = await startProvider(id, () => ({ status: 503, body: "upstream down" }));
      await expect(
        provider.validateCallback({ code: "c", codeVerifier: VERIFIER, nonce: NONCE }),
      ).rejects.toMatchObject({ code: "PROVIDER_ERROR", status: 502 });
    });
  });

  // The user-info step of the providers that make one.
  const withUserInfo = builtinProviderIds.filter((id) => Object.keys(cases[id].routes).length > 0);

  it.each(withUserInfo)("%s: a failing user-info call is PROVIDER_ERROR", async (id) => {
    const spec = cases[id];
    const fake = await startFakeServer((request) =>
      request.method === "POST"
        ? {
            status: 200,
            body: JSON.stringify({ access_token: ACCESS_TOKEN, token_type: "Bearer" }),
          }
        : { status: 500, body: `${CLIENT_SECRET} leaked?` },
    );
    const provider = builtinProviders[id]({
      clientId: CLIENT_ID,
      clientSecret: CLIENT_SECRET,
      redirectURI: REDIRECT,
      endpoints: Object.fromEntries(ROLES.map((role) => [role, fake.url])),
    });
    const error = await provider
      .validateCallback({ code: "c", codeVerifier: VERIFIER, nonce: NONCE })
      .catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: "PROVIDER_ERROR", status: 502 });
    expect((error as Error).message).not.toContain(CLIENT_SECRET);
    expect(spec.routes).toBeDefined();
  });

  const withIdToken = builtinProviderIds.filter((id) => cases[id].idToken !== undefined);

  it.each(withIdToken)("%s: an ID token with another nonce is INVALID_ID_TOKEN", async (id) => {
    const { provider } = await startProvider(id, undefined, "another nonce");
    await expect(
      provider.validateCallback({ code: "c", codeVerifier: VERIFIER, nonce: NONCE }),
    ).rejects.toMatchObject({ code: "INVALID_ID_TOKEN", status: 401 });
  });

  it("github: an unverified primary address is not verified", async () => {
    const fake = await startFakeServer((request) => {
      if (request.method === "POST") {
        return {
          status: 200,
          body: JSON.stringify({ access_token: ACCESS_TOKEN, token_type: "bearer" }),
        };
      }
      if (request.path === "/user")
        return { status: 200, body: JSON.stringify({ id: 1, login: "a" }) };
      return {
        status: 200,
        body: JSON.stringify([{ email: "a@x.dev", primary: true, verified: false }]),
      };
    });
    const provider = builtinProviders.github({
      clientId: CLIENT_ID,
      clientSecret: CLIENT_SECRET,
      redirectURI: REDIRECT,
      endpoints: { web: fake.url, api: fake.url },
    });
    const identity = await provider.validateCallback({
      code: "c",
      codeVerifier: VERIFIER,
      nonce: NONCE,
    });
    expect(identity).toMatchObject({ email: "a@x.dev", emailVerified: false });
  });

  it("github: a bad code answered with 200 and an error is PROVIDER_DENIED", async () => {
    const fake = await startFakeServer(() => ({
      status: 200,
      body: JSON.stringify({ error: "bad_verification_code" }),
    }));
    const provider = builtinProviders.github({
      clientId: CLIENT_ID,
      clientSecret: CLIENT_SECRET,
      redirectURI: REDIRECT,
      endpoints: { web: fake.url, api: fake.url },
    });
    await expect(
      provider.validateCallback({ code: "c", codeVerifier: VERIFIER, nonce: NONCE }),
    ).rejects.toMatchObject({ code: "PROVIDER_DENIED" });
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
    const identity = await provider.validateCallback({
      code: "c",
      codeVerifier: VERIFIER,
      nonce: NONCE,
    });
    expect(identity).toMatchObject({ providerUserId: "m", emailVerified: true });
  });

  it("google: an ID token for another client is INVALID_ID_TOKEN", async () => {
    const { provider } = await startProvider("google", async () => ({
      status: 200,
      body: JSON.stringify({
        access_token: ACCESS_TOKEN,
        token_type: "Bearer",
        id_token: await idTokenFor({ ...googleClaims, aud: "someone-else" }),
      }),
    }));
    await expect(
      provider.validateCallback({ code: "c", codeVerifier: VERIFIER, nonce: NONCE }),
    ).rejects.toMatchObject({ code: "INVALID_ID_TOKEN" });
  });
});
