import { decodeBase32IgnorePadding } from "@oslojs/encoding";
import { generateTOTP } from "@oslojs/otp";
import { type TestDatabaseTarget, testDatabases } from "@svc/tooling/databases";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { OAUTH_STATE_COOKIE, stateCookieName } from "../src/express.js";
import {
  type CallbackInput,
  OAuthError,
  type OAuthIdentity,
  type OAuthProvider,
  STATE_TTL_MS,
} from "../src/index.js";
import {
  bootRouter,
  cookiePair,
  errorCode,
  get,
  type RouterServer,
  setCookies,
  TRUSTED,
  userCount,
} from "./router-harness.js";

// The OAuth routes over scripted providers, on every database: the
// provider listing, the login redirect and its open-redirect refusals, the
// callback's state and cookie checks, every failure ending on the callback
// as an error code, Apple-style form_post callbacks, and the token and
// second-factor hand-overs.

const START = Date.UTC(2026, 10, 25, 10, 0, 0);
const SECRET_IN_ERROR = "client-secret-must-not-leak";

/** What the scripted provider's next `validateCallback` does. */
type Behaviour = (input: CallbackInput) => Promise<Omit<OAuthIdentity, "provider">>;

function scripted(id: string, responseMode: "query" | "form_post" = "query") {
  const calls: CallbackInput[] = [];
  const verifiedAda: Behaviour = async () => ({
    providerUserId: "u-1",
    email: "ada@example.com",
    emailVerified: true,
  });
  let behaviour = verifiedAda;
  const provider: OAuthProvider = {
    id,
    name: id.toUpperCase(),
    responseMode,
    createAuthorizationURL({ state, nonce }) {
      const url = new URL("https://idp.example/authorize");
      url.searchParams.set("state", state);
      url.searchParams.set("nonce", nonce);
      return url;
    },
    async validateCallback(input) {
      calls.push(input);
      return { provider: id, ...(await behaviour(input)) };
    },
  };
  return {
    provider,
    calls,
    behave(next: Behaviour) {
      behaviour = next;
    },
    reset() {
      calls.length = 0;
      behaviour = verifiedAda;
    },
  };
}

describe.each(testDatabases())("OAuth router on $name", (database) => {
  let target: TestDatabaseTarget;
  let server: RouterServer;
  let clock = START;
  const github = scripted("github");
  const apple = scripted("apple", "form_post");

  beforeEach(async () => {
    clock = START;
    github.reset();
    apple.reset();
    target = await database.create();
    server = await bootRouter(target, {
      providers: [github.provider, apple.provider],
      now: () => clock,
    });
  });

  afterEach(async () => {
    await server.close();
    await database.destroy(target);
  });

  /** Starts a sign-in; returns the state and the state cookie. */
  async function login(query = `callback=${encodeURIComponent(`${TRUSTED}/done`)}`, id = "github") {
    const response = await get(`${server.url}/api/auth/login/${id}?${query}`);
    expect(response.status).toBe(302);
    const location = new URL(response.headers.get("location") ?? "");
    return {
      response,
      location,
      state: location.searchParams.get("state") ?? "",
      cookie: cookiePair(response, OAUTH_STATE_COOKIE),
    };
  }

  function callback(state: string, cookie: string, extra = "code=good", id = "github") {
    return get(
      `${server.url}/api/auth/callback/${id}?state=${encodeURIComponent(state)}&${extra}`,
      {
        cookie,
      },
    );
  }

  it("lists the enabled providers", async () => {
    const response = await get(`${server.url}/api/auth/providers`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      providers: [
        { id: "github", name: "GITHUB", type: "oauth", login_path: "/api/auth/login/github" },
        { id: "apple", name: "APPLE", type: "oauth", login_path: "/api/auth/login/apple" },
      ],
    });
  });

  it("redirects to the provider with the state and sets a Lax, HttpOnly state cookie for the callback path", async () => {
    const { response, location, state } = await login();
    expect(location.origin).toBe("https://idp.example");
    expect(state).toMatch(/^\S{20,}$/);
    expect(response.headers.get("cache-control")).toBe("no-store");
    const cookie = setCookies(response).find((value) => value.startsWith(OAUTH_STATE_COOKIE));
    expect(cookie).toContain("HttpOnly");
    expect(cookie).toContain("SameSite=Lax");
    expect(cookie).toContain("Path=/api/auth/callback");
    expect(cookie).toContain("Max-Age=600");
    expect(cookie).not.toContain("Secure");
  });

  it("answers an unknown provider with 404 UNKNOWN_PROVIDER on login and callback", async () => {
    const login = await get(`${server.url}/api/auth/login/myspace?callback=/`);
    expect(login.status).toBe(404);
    expect(await errorCode(login)).toBe("UNKNOWN_PROVIDER");
    const back = await get(`${server.url}/api/auth/callback/myspace?state=x&code=y`);
    expect(back.status).toBe(404);
    expect(await errorCode(back)).toBe("UNKNOWN_PROVIDER");
  });

  it.each([
    "https://evil.example/",
    "//evil.example/path",
    "/\\evil.example",
    "/\t/evil.example",
    "https://app.example.evil.example/",
    "https://app.example@evil.example/",
    "http://app.example/",
    "javascript:alert(1)",
    "data:text/html,hi",
  ])("refuses callback %j with 400 INVALID_REDIRECT and starts nothing", async (attempt) => {
    const response = await get(
      `${server.url}/api/auth/login/github?callback=${encodeURIComponent(attempt)}`,
    );
    expect(response.status).toBe(400);
    expect(await errorCode(response)).toBe("INVALID_REDIRECT");
    expect(response.headers.get("location")).toBeNull();
    expect(setCookies(response)).toEqual([]);
  });

  it("refuses an unknown response mode with 400 INVALID_QUERY", async () => {
    const response = await get(`${server.url}/api/auth/login/github?callback=/&response=code`);
    expect(response.status).toBe(400);
    expect(await errorCode(response)).toBe("INVALID_QUERY");
  });

  it("signs in, sets the session cookie and sends the browser to the callback", async () => {
    const { state, cookie } = await login();
    const response = await callback(state, cookie);
    expect(response.status).toBe(303);
    expect(response.headers.get("location")).toBe(`${TRUSTED}/done`);
    const session = cookiePair(response, "svc_session").split("=")[1] ?? "";
    const caller = await server.auth.resolveSession(session);
    expect(caller?.userId).toEqual(expect.any(String));
    // The state cookie is cleared.
    expect(setCookies(response)).toContainEqual(
      `${stateCookieName(state)}=; Path=/api/auth/callback; Max-Age=0; HttpOnly; SameSite=Lax`,
    );
    expect(github.calls[0]).toMatchObject({ code: "good", params: { code: "good", state } });
  });

  it("a relative callback resolves against the server's own origin; none means its root", async () => {
    const relative = await login("callback=/welcome");
    const first = await callback(relative.state, relative.cookie);
    expect(first.headers.get("location")).toBe(`${server.url}/welcome`);
    const bare = await login("");
    const second = await callback(bare.state, bare.cookie);
    expect(second.headers.get("location")).toBe(`${server.url}/`);
  });

  it("with response=token hands the token over in the callback's fragment", async () => {
    const { state, cookie } = await login(
      `callback=${encodeURIComponent(`${TRUSTED}/app`)}&response=token`,
    );
    const response = await callback(state, cookie);
    const location = new URL(response.headers.get("location") ?? "");
    expect(`${location.origin}${location.pathname}${location.search}`).toBe(`${TRUSTED}/app`);
    const fragment = new URLSearchParams(location.hash.slice(1));
    const token = fragment.get("token") ?? "";
    expect(token).toMatch(/^svc_/);
    const caller = await server.auth.resolveSession(token);
    expect(fragment.get("user_id")).toBe(caller?.userId);
    expect(Number(fragment.get("expires_at"))).toBeGreaterThan(START / 1000);
  });

  it("a replayed state is 400 INVALID_STATE and signs nobody in twice", async () => {
    const { state, cookie } = await login();
    expect((await callback(state, cookie)).status).toBe(303);
    const replay = await callback(state, cookie);
    expect(replay.status).toBe(400);
    expect(await errorCode(replay)).toBe("INVALID_STATE");
    expect(setCookies(replay).some((value) => value.startsWith("svc_session="))).toBe(false);
    expect(github.calls).toHaveLength(1);
  });

  it("an unknown, missing or expired state is 400 INVALID_STATE and creates nothing", async () => {
    const unknown = await callback(
      "never-issued",
      `${stateCookieName("never-issued")}=never-issued`,
    );
    expect(unknown.status).toBe(400);
    expect(await errorCode(unknown)).toBe("INVALID_STATE");
    const missing = await get(`${server.url}/api/auth/callback/github?code=good`);
    expect(await errorCode(missing)).toBe("INVALID_STATE");
    const { state, cookie } = await login();
    clock += STATE_TTL_MS;
    const expired = await callback(state, cookie);
    expect(expired.status).toBe(400);
    expect(await errorCode(expired)).toBe("INVALID_STATE");
    expect(github.calls).toEqual([]);
    expect(await userCount(server)).toBe(0);
  });

  it("a state started for one provider does not complete another", async () => {
    const { state, cookie } = await login(undefined, "github");
    const response = await get(`${server.url}/api/auth/callback/apple?state=${state}&code=x`, {
      cookie,
    });
    expect(response.status).toBe(400);
    expect(await errorCode(response)).toBe("INVALID_STATE");
  });

  it("two sign-ins started in two tabs both complete", async () => {
    const first = await login();
    const second = await login();
    expect(first.cookie).not.toBe(second.cookie);
    const both = `${first.cookie}; ${second.cookie}`;
    expect((await callback(second.state, both)).headers.get("location")).toBe(`${TRUSTED}/done`);
    expect((await callback(first.state, both)).headers.get("location")).toBe(`${TRUSTED}/done`);
  });

  it("a GET callback without this browser's state cookie ends with error=INVALID_STATE (login CSRF)", async () => {
    const victim = await login();
    const attacker = await login();
    const noCookie = await callback(victim.state, "");
    expect(noCookie.headers.get("location")).toBe(`${TRUSTED}/done?error=INVALID_STATE`);
    const wrongCookie = await callback(attacker.state, victim.cookie);
    expect(wrongCookie.headers.get("location")).toBe(`${TRUSTED}/done?error=INVALID_STATE`);
    const forged = await login();
    const wrongValue = await callback(
      forged.state,
      `${stateCookieName(forged.state)}=${victim.state}`,
    );
    expect(wrongValue.headers.get("location")).toBe(`${TRUSTED}/done?error=INVALID_STATE`);
    expect(github.calls).toEqual([]);
    expect(await userCount(server)).toBe(0);
  });

  it("denied consent and a missing code end on the callback as PROVIDER_DENIED", async () => {
    const denied = await login();
    const first = await callback(denied.state, denied.cookie, "error=access_denied");
    expect(first.status).toBe(303);
    expect(first.headers.get("location")).toBe(`${TRUSTED}/done?error=PROVIDER_DENIED`);
    const codeless = await login();
    const second = await callback(codeless.state, codeless.cookie, "code=");
    expect(second.headers.get("location")).toBe(`${TRUSTED}/done?error=PROVIDER_DENIED`);
    expect(await userCount(server)).toBe(0);
  });

  it.each([
    [
      "PROVIDER_ERROR",
      () => new OAuthError("PROVIDER_ERROR", { cause: new Error(SECRET_IN_ERROR) }),
    ],
    ["INVALID_ID_TOKEN", () => new OAuthError("INVALID_ID_TOKEN")],
    ["INTERNAL_ERROR", () => new Error(`database said ${SECRET_IN_ERROR}`)],
  ])(
    "a provider failing with %s ends on the callback with that code and no secret",
    async (code, failure) => {
      github.behave(async () => {
        throw failure();
      });
      const { state, cookie } = await login(
        `callback=${encodeURIComponent(`${TRUSTED}/done?tab=1`)}`,
      );
      const response = await callback(state, cookie);
      expect(response.status).toBe(303);
      expect(response.headers.get("location")).toBe(`${TRUSTED}/done?tab=1&error=${code}`);
      const text = await response.text();
      expect(text).not.toContain(SECRET_IN_ERROR);
      expect(setCookies(response).some((value) => value.startsWith("svc_session="))).toBe(false);
      // Outages and surprises reach the log; a refused token is the caller's problem.
      expect(server.errors).toHaveLength(code === "INVALID_ID_TOKEN" ? 0 : 1);
      expect(await userCount(server)).toBe(0);
    },
  );

  it("an unverified email of an existing user ends with error=ACCOUNT_NOT_LINKED", async () => {
    const first = await login();
    await callback(first.state, first.cookie);
    github.behave(async () => ({
      providerUserId: "u-2",
      email: "ada@example.com",
      emailVerified: false,
    }));
    const second = await login();
    const response = await callback(second.state, second.cookie);
    expect(response.headers.get("location")).toBe(`${TRUSTED}/done?error=ACCOUNT_NOT_LINKED`);
    expect(await userCount(server)).toBe(1);
  });

  it("a form_post callback needs no cookie, ignores the Origin and reads the form body", async () => {
    apple.behave(async (input) => ({
      providerUserId: "apple-1",
      email: "ada@privaterelay.appleid.com",
      emailVerified: true,
      ...(input.params?.user !== undefined && { name: "Ada" }),
    }));
    const { state } = await login(`callback=${encodeURIComponent(`${TRUSTED}/done`)}`, "apple");
    const response = await fetch(`${server.url}/api/auth/callback/apple`, {
      method: "POST",
      redirect: "manual",
      headers: {
        "Content-Type": "application/x-www-form-urlencoded",
        Origin: "https://appleid.apple.com",
        "Sec-Fetch-Site": "cross-site",
      },
      body: new URLSearchParams({
        state,
        code: "apple-code",
        user: '{"name":{"firstName":"Ada"}}',
      }),
    });
    expect(response.status).toBe(303);
    expect(response.headers.get("location")).toBe(`${TRUSTED}/done`);
    expect(setCookies(response).some((value) => value.startsWith("svc_session="))).toBe(true);
    expect(apple.calls.at(-1)?.params).toEqual({
      state,
      code: "apple-code",
      user: '{"name":{"firstName":"Ada"}}',
    });
  });

  it("a user with a second factor is sent to the callback with the challenge in the fragment", async () => {
    const first = await login();
    const signedIn = await callback(first.state, first.cookie);
    const token = cookiePair(signedIn, "svc_session").split("=")[1] ?? "";
    const caller = await server.auth.resolveSession(token);
    if (caller === null) throw new Error("no session");
    const { secret } = await server.auth.totp.enroll(caller);
    await server.auth.totp.confirm(caller, { code: totpAt(secret, clock) });
    clock += 30_000;
    const second = await login();
    const response = await callback(second.state, second.cookie);
    const location = new URL(response.headers.get("location") ?? "");
    expect(`${location.origin}${location.pathname}`).toBe(`${TRUSTED}/done`);
    const fragment = new URLSearchParams(location.hash.slice(1));
    expect(fragment.get("second_factor_required")).toBe("true");
    expect(fragment.get("methods")).toBe("totp,backup_code");
    expect(fragment.get("challenge")).toMatch(/\S{16,}/);
    expect(setCookies(response).some((value) => value.startsWith("svc_session="))).toBe(false);
  });
});

describe.each(testDatabases())("OAuth router limits on $name", (database) => {
  it("answers 429 RATE_LIMITED past the per-address limit, before any state is saved", async () => {
    const target = await database.create();
    const github = scripted("github");
    const server = await bootRouter(target, {
      providers: [github.provider],
      perIp: { limit: 2, windowMs: 60_000 },
      now: () => START,
    });
    try {
      for (let i = 0; i < 2; i++) {
        expect((await get(`${server.url}/api/auth/login/github?callback=/`)).status).toBe(302);
      }
      const limited = await get(`${server.url}/api/auth/login/github?callback=/`);
      expect(limited.status).toBe(429);
      expect(await errorCode(limited)).toBe("RATE_LIMITED");
      const callback = await get(`${server.url}/api/auth/callback/github?state=x&code=y`);
      expect(callback.status).toBe(429);
    } finally {
      await server.close();
      await database.destroy(target);
    }
  });
});

/** The TOTP code of `secret` at `ms` (oslo reads Date.now). */
function totpAt(secret: string, ms: number): string {
  vi.useFakeTimers({ now: ms, toFake: ["Date"] });
  try {
    return generateTOTP(decodeBase32IgnorePadding(secret), 30, 6);
  } finally {
    vi.useRealTimers();
  }
}
