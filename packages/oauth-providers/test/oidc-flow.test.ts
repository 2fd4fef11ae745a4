import { type TestDatabaseTarget, testDatabases } from "@svc/tooling/databases";
import { OAuth2Server } from "oauth2-mock-server";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { OAUTH_STATE_COOKIE } from "../src/express.js";
import { type OAuthProvider, parseOAuthConfig, prepareOAuthProviders } from "../src/index.js";
import {
  bootRouter,
  cookiePair,
  errorCode,
  get,
  type RouterServer,
  TRUSTED,
  userCount,
} from "./router-harness.js";

// The whole sign-in through the router against a real local OpenID Connect
// server (oauth2-mock-server), configured from the environment as svc's
// server does, on every database: the authorization code flow with PKCE and
// a verified ID token, a server restart between login and callback, a
// replayed state and a tampered ID token.

const REGISTERED = "http://127.0.0.1:1/api/auth/callback/corp";

describe.each(testDatabases())("OpenID Connect sign-in on $name", (database) => {
  let target: TestDatabaseTarget;
  let idp: OAuth2Server;
  let providers: OAuthProvider[];
  let server: RouterServer | undefined;

  beforeEach(async () => {
    target = await database.create();
    idp = new OAuth2Server();
    await idp.issuer.keys.generate("RS256");
    await idp.start(0, "127.0.0.1");
    const issuer = `http://127.0.0.1:${idp.address().port}`;
    idp.issuer.url = issuer;
    idp.service.on("beforeTokenSigning", (token) => {
      token.payload.sub = "corp-user-7";
      token.payload.email = "ada@corp.example";
      token.payload.email_verified = true;
    });
    providers = parseOAuthConfig({
      SVC_OIDC_CORP_ISSUER: issuer,
      SVC_OIDC_CORP_CLIENT_ID: "svc-client",
      SVC_OIDC_CORP_CLIENT_SECRET: "svc-secret",
      SVC_OIDC_CORP_REDIRECT: REGISTERED,
    });
    await prepareOAuthProviders(providers);
  });

  afterEach(async () => {
    await server?.close();
    server = undefined;
    await idp.stop();
    await database.destroy(target);
  });

  async function boot(): Promise<RouterServer> {
    await server?.close();
    server = await bootRouter(target, { providers });
    return server;
  }

  /** Login, then the browser at the IdP: returns the callback path (on any server) and the state cookie. */
  async function startSignIn(running: RouterServer) {
    const login = await get(
      `${running.url}/api/auth/login/corp?callback=${encodeURIComponent(`${TRUSTED}/home`)}`,
    );
    expect(login.status).toBe(302);
    const authorize = await get(login.headers.get("location") ?? "");
    expect(authorize.status).toBe(302);
    const back = new URL(authorize.headers.get("location") ?? "");
    expect(`${back.origin}${back.pathname}`).toBe(REGISTERED);
    return {
      path: `${back.pathname}${back.search}`,
      cookie: cookiePair(login, OAUTH_STATE_COOKIE),
    };
  }

  /** A whole sign-in ends back at the app with INVALID_ID_TOKEN, and no user was made. */
  async function expectIdTokenRefused(): Promise<void> {
    const running = await boot();
    const { path, cookie } = await startSignIn(running);
    const done = await get(`${running.url}${path}`, { cookie });
    expect(done.headers.get("location")).toBe(`${TRUSTED}/home?error=INVALID_ID_TOKEN`);
    expect(await userCount(running)).toBe(0);
  }

  it("signs in with a verified ID token and lists the provider as oidc", async () => {
    const running = await boot();
    const listed = await (await get(`${running.url}/api/auth/providers`)).json();
    expect(listed).toEqual({
      providers: [{ id: "corp", name: "corp", type: "oidc", login_path: "/api/auth/login/corp" }],
    });
    const { path, cookie } = await startSignIn(running);
    const done = await get(`${running.url}${path}`, { cookie });
    expect(done.status).toBe(303);
    expect(done.headers.get("location")).toBe(`${TRUSTED}/home`);
    const token = cookiePair(done, "svc_session").split("=")[1] ?? "";
    const me = await running.auth.resolveSession(token);
    const user = await running.store.systemReader().get("User", me?.userId ?? "");
    expect(user).toMatchObject({ email: "ada@corp.example", emailVerified: expect.any(String) });
  });

  it("completes a handshake the server started before it restarted", async () => {
    const before = await boot();
    const { path, cookie } = await startSignIn(before);
    const after = await boot();
    const done = await get(`${after.url}${path}`, { cookie });
    expect(done.status).toBe(303);
    expect(done.headers.get("location")).toBe(`${TRUSTED}/home`);
    expect(await userCount(after)).toBe(1);
  });

  it("a replayed callback is refused and creates nothing more", async () => {
    const running = await boot();
    const { path, cookie } = await startSignIn(running);
    expect((await get(`${running.url}${path}`, { cookie })).status).toBe(303);
    const replay = await get(`${running.url}${path}`, { cookie });
    expect(replay.status).toBe(400);
    expect(await errorCode(replay)).toBe("INVALID_STATE");
    expect(await userCount(running)).toBe(1);
  });

  it("a tampered ID token ends with error=INVALID_ID_TOKEN and creates nobody", async () => {
    idp.service.on("beforeResponse", (response) => {
      const body = response.body as Record<string, unknown>;
      if (typeof body.id_token === "string") {
        const [header, payload, signature] = body.id_token.split(".");
        const claims = JSON.parse(Buffer.from(payload ?? "", "base64url").toString("utf8"));
        claims.email = "admin@corp.example";
        const forged = Buffer.from(JSON.stringify(claims)).toString("base64url");
        body.id_token = [header, forged, signature].join(".");
      }
    });
    await expectIdTokenRefused();
  });

  it("an ID token for another nonce is refused", async () => {
    idp.service.on("beforeTokenSigning", (token) => {
      token.payload.nonce = "someone-elses-nonce";
    });
    await expectIdTokenRefused();
  });

  it("an unreachable IdP at the code exchange ends with error=PROVIDER_ERROR", async () => {
    const running = await boot();
    const { path, cookie } = await startSignIn(running);
    await idp.stop();
    const done = await get(`${running.url}${path}`, { cookie });
    expect(done.headers.get("location")).toBe(`${TRUSTED}/home?error=PROVIDER_ERROR`);
    expect(running.errors).toHaveLength(1);
    await idp.start(0, "127.0.0.1");
  });
});
