import { testDatabases } from "@svc/tooling/databases";
import { OAuth2Server } from "oauth2-mock-server";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { parseConfig } from "../src/config.js";
import { startServer } from "../src/start-server.js";
import { appPerTest, startAppServer } from "./app-server.js";
import { type AuthTestServer, request, TRUSTED_ORIGIN } from "./auth-fixtures.js";
import { ADMIN_TOKEN, adminRequest, TODO_MANIFEST } from "./fixtures.js";

// OAuth sign-in through the composed server, configured only by the
// environment, against a real local OpenID Connect server, on every
// database: the providers listing, a whole sign-in in the default
// configuration with a restart between login and callback, callbacks that
// carry a stale bearer or cookie or arrive as a cross-site POST, account
// deletion and export seeing the link, and the boot refusals.

/** The public address the registered redirects name; requests go to the real port. */
const REGISTERED_ORIGIN = "https://svc.example";

describe.each(testDatabases())("OAuth through the server on $name", (database) => {
  let idp: OAuth2Server;
  let issuer: string;
  const app = appPerTest(database);
  let server: AuthTestServer | undefined;

  beforeEach(async () => {
    idp = new OAuth2Server();
    await idp.issuer.keys.generate("RS256");
    await idp.start(0, "127.0.0.1");
    issuer = `http://127.0.0.1:${idp.address().port}`;
    idp.issuer.url = issuer;
    idp.service.on("beforeTokenSigning", (token) => {
      token.payload.sub = "okta-42";
      token.payload.email = "ada@corp.example";
      token.payload.email_verified = true;
    });
  });

  afterEach(async () => {
    await server?.[Symbol.asyncDispose]();
    server = undefined;
    await idp.stop();
  });

  /** Boots (or reboots) the server over the suite's database; the default SQLite setup keeps sessions in memory. */
  async function boot(): Promise<AuthTestServer> {
    await server?.[Symbol.asyncDispose]();
    server = await startAppServer(app, {
      SVC_PUBLIC_URL: REGISTERED_ORIGIN,
      SVC_RATE_LIMIT: "off",
      SVC_OIDC_OKTA_ISSUER: issuer,
      SVC_OIDC_OKTA_CLIENT_ID: "svc-client",
      SVC_OIDC_OKTA_CLIENT_SECRET: "svc-secret",
      SVC_OAUTH_GITHUB_CLIENT_ID: "gh-client",
      SVC_OAUTH_GITHUB_CLIENT_SECRET: "gh-secret",
    });
    return server;
  }

  /** Login, then the browser at the IdP: the callback query and the state cookie. */
  async function handshake(running: AuthTestServer) {
    const login = await fetch(
      `${running.url}/api/auth/login/okta?callback=${encodeURIComponent(`${TRUSTED_ORIGIN}/signed-in`)}`,
      { redirect: "manual" },
    );
    expect(login.status).toBe(302);
    const authorize = await fetch(login.headers.get("location") ?? "", { redirect: "manual" });
    const back = new URL(authorize.headers.get("location") ?? "");
    expect(`${back.origin}${back.pathname}`).toBe(`${REGISTERED_ORIGIN}/api/auth/callback/okta`);
    const stateCookie = (login.headers.getSetCookie()[0] ?? "").split(";")[0] ?? "";
    return { search: back.search, params: back.searchParams, stateCookie };
  }

  function sessionTokenOf(response: Response): string | undefined {
    const cookie = response.headers
      .getSetCookie()
      .find((value) => value.startsWith("svc_session=") && !value.startsWith("svc_session=;"));
    return cookie?.split(";")[0]?.slice("svc_session=".length);
  }

  it("lists the enabled providers", async () => {
    const running = await boot();
    const response = await fetch(`${running.url}/api/auth/providers`);
    expect(await response.json()).toEqual({
      providers: [
        { id: "github", name: "GitHub", type: "oauth", login_path: "/api/auth/login/github" },
        { id: "okta", name: "okta", type: "oidc", login_path: "/api/auth/login/okta" },
      ],
    });
  });

  it("signs in across a restart between login and callback, with a stale bearer and cookie on the callback", async () => {
    const before = await boot();
    const { search, stateCookie } = await handshake(before);
    const after = await boot();
    const done = await fetch(`${after.url}/api/auth/callback/okta${search}`, {
      redirect: "manual",
      headers: {
        authorization: "Bearer svc_revoked-long-ago",
        cookie: `${stateCookie}; svc_session=svc_expired`,
      },
    });
    expect(done.status).toBe(303);
    expect(done.headers.get("location")).toBe(`${TRUSTED_ORIGIN}/signed-in`);
    const token = sessionTokenOf(done) ?? "";
    const me = await request(after, "GET", "/api/auth/me", { token });
    expect(me.status).toBe(200);
    expect(await me.json()).toMatchObject({
      via: "session",
      user: { email: "ada@corp.example", emailVerified: expect.any(String) },
    });
  });

  it("accepts the callback as a cross-site form POST even with a session cookie (no CSRF check there)", async () => {
    const running = await boot();
    const signedIn = await handshake(running);
    const first = await fetch(`${running.url}/api/auth/callback/okta${signedIn.search}`, {
      redirect: "manual",
      headers: { cookie: signedIn.stateCookie },
    });
    const existing = sessionTokenOf(first) ?? "";
    const { params } = await handshake(running);
    const posted = await fetch(`${running.url}/api/auth/callback/okta`, {
      method: "POST",
      redirect: "manual",
      headers: {
        "content-type": "application/x-www-form-urlencoded",
        origin: "https://idp.example",
        "sec-fetch-site": "cross-site",
        cookie: `svc_session=${existing}`,
      },
      body: new URLSearchParams({
        state: params.get("state") ?? "",
        code: params.get("code") ?? "",
      }),
    });
    expect(posted.status).toBe(303);
    expect(posted.headers.get("location")).toBe(`${TRUSTED_ORIGIN}/signed-in`);
    expect(sessionTokenOf(posted)).toMatch(/^svc_/);
  });

  it("refuses an untrusted callback before leaving for the provider", async () => {
    const running = await boot();
    const response = await fetch(
      `${running.url}/api/auth/login/okta?callback=${encodeURIComponent("https://evil.example/")}`,
      { redirect: "manual" },
    );
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({
      error: { code: "INVALID_REDIRECT", message: expect.any(String) },
    });
  });

  it("account deletion unlinks the identity and the export lists it before", async () => {
    const running = await boot();
    const { search, stateCookie } = await handshake(running);
    const done = await fetch(`${running.url}/api/auth/callback/okta${search}`, {
      redirect: "manual",
      headers: { cookie: stateCookie },
    });
    const token = sessionTokenOf(done) ?? "";
    const me = (await (await request(running, "GET", "/api/auth/me", { token })).json()) as {
      user_id: string;
    };
    const exported = await adminRequest(running, "GET", `/api/admin/users/${me.user_id}/export`);
    expect(await exported.json()).toMatchObject({
      linked_accounts: [{ provider: "okta", provider_user_id: "okta-42" }],
    });
    const deleted = await request(running, "DELETE", "/api/auth/account", { token });
    expect(await deleted.json()).toMatchObject({ deleted: true, unlinked_accounts: 1 });
  });
});

describe("OAuth boot refusals", () => {
  const base = {
    SVC_PORT: "0",
    SVC_HOST: "127.0.0.1",
    SVC_MANIFEST: TODO_MANIFEST,
    SVC_ADMIN_TOKEN: ADMIN_TOKEN,
    SVC_DB_PATH: ":memory:",
    SVC_PUBLIC_URL: REGISTERED_ORIGIN,
  };

  it("leaves out a half-configured provider with a warning naming its missing secret", () => {
    // The spec: such a provider is disabled, not a boot refusal (issue 21, finding 10).
    const config = parseConfig({ ...base, SVC_OAUTH_GITHUB_CLIENT_ID: "x" });
    expect(config.oauth.map((provider) => provider.id)).not.toContain("github");
    expect(config.warnings.join("\n")).toContain("SVC_OAUTH_GITHUB_CLIENT_SECRET");
  });

  it("names the redirect when there is no public URL to derive it from", () => {
    const { SVC_PUBLIC_URL: _unused, ...withoutURL } = base;
    expect(() =>
      parseConfig({
        ...withoutURL,
        SVC_OAUTH_GITHUB_CLIENT_ID: "x",
        SVC_OAUTH_GITHUB_CLIENT_SECRET: "y",
      }),
    ).toThrow("SVC_OAUTH_GITHUB_REDIRECT");
  });

  it("stops the boot naming the issuer an OpenID Connect provider cannot be discovered at", async () => {
    const config = parseConfig({
      ...base,
      SVC_OIDC_CORP_ISSUER: "http://127.0.0.1:9/",
      SVC_OIDC_CORP_CLIENT_ID: "x",
      SVC_OIDC_CORP_CLIENT_SECRET: "y",
    });
    await expect(startServer(config)).rejects.toThrow("SVC_OIDC_CORP_ISSUER");
  });
});
