import { closeFakeServers } from "@svc/tooling/http-server";
import { afterEach, describe, expect, it } from "vitest";
import { type AuthRouterOptions, apiKeyResolver, sessionResolver } from "../src/express.js";
import type { Auth } from "../src/index.js";
import { type AuthFixture, databases, useAuthFixture } from "./fixture.js";
import { serveAuthRouter } from "./serve-auth-router.js";

// The three password routes through the express router, over HTTP: bodies,
// status codes, the error envelope, cookies, the CAPTCHA gate and the
// limiters. The flows' rules are covered in password-reset.test.ts.

const EMAIL = "ada@example.com";
const OLD = "the old long password";
const NEW = "the new long password";

afterEach(closeFakeServers);

/** Serves `auth` (dev mode by default) on a loopback port; resolves with its base address. */
function serve(
  f: AuthFixture,
  options: { auth?: Auth; router?: Partial<AuthRouterOptions> } = {},
): Promise<string> {
  const auth = options.auth ?? f.createAuth({ devMode: true });
  return serveAuthRouter(auth, {
    router: options.router,
    resolvers: [apiKeyResolver(auth), sessionResolver(auth)],
  });
}

async function call(
  base: string,
  path: string,
  init: { body?: unknown; raw?: string; token?: string; method?: string } = {},
): Promise<{ status: number; body: Record<string, unknown>; cookie: string | null }> {
  const response = await fetch(`${base}${path}`, {
    method: init.method ?? "POST",
    headers: {
      "content-type": "application/json",
      ...(init.token !== undefined && { authorization: `Bearer ${init.token}` }),
    },
    ...((init.raw !== undefined || init.body !== undefined) && {
      body: init.raw ?? JSON.stringify(init.body),
    }),
  });
  return {
    status: response.status,
    body: (await response.json()) as Record<string, unknown>,
    cookie: response.headers.get("set-cookie"),
  };
}

describe.each(databases)("the password routes on $name", (database) => {
  const fixture = useAuthFixture(database);

  it("reset/send answers 200 {sent, email} for every address; dev_code only where a code was emailed", async () => {
    const f = fixture();
    await f.registerVerified(EMAIL, OLD);
    const base = await serve(f);
    const known = await call(base, "/api/auth/password/reset/send", { body: { email: EMAIL } });
    const unknown = await call(base, "/api/auth/password/reset/send", {
      body: { email: "nobody@example.com" },
    });
    expect(known).toMatchObject({ status: 200, body: { sent: true, email: EMAIL } });
    expect(known.body.dev_code).toBe(f.lastCode(EMAIL));
    expect(unknown).toEqual({
      status: 200,
      body: { sent: true, email: "nobody@example.com" },
      cookie: null,
    });
    // The cooldown answers both alike too.
    for (const email of [EMAIL, "nobody@example.com"]) {
      const again = await call(base, "/api/auth/password/reset/send", { body: { email } });
      expect(again.status).toBe(429);
      expect(again.body).toMatchObject({ error: { code: "RATE_LIMITED" }, retry_after_secs: 60 });
    }
  });

  it("reset signs in with the cookie and ends the old sessions; change keeps the caller's", async () => {
    const f = fixture();
    const old = await f.registerVerified(EMAIL, OLD);
    const base = await serve(f);
    const sent = await call(base, "/api/auth/password/reset/send", { body: { email: EMAIL } });
    const reset = await call(base, "/api/auth/password/reset", {
      body: { email: EMAIL, code: sent.body.dev_code, password: NEW },
    });
    expect(reset.status).toBe(200);
    expect(Object.keys(reset.body).sort()).toEqual(["expires_at", "token", "user_id"]);
    expect(reset.body.user_id).toBe(old.userId);
    expect(reset.cookie).toMatch(new RegExp(`^svc_session=${String(reset.body.token)};`));
    const stale = await call(base, "/api/auth/me", { method: "GET", token: old.token });
    expect(stale).toMatchObject({ status: 401, body: { error: { code: "INVALID_TOKEN" } } });
    const token = String(reset.body.token);
    expect((await call(base, "/api/auth/me", { method: "GET", token })).status).toBe(200);

    const other = await call(base, "/api/auth/password/login", {
      body: { email: EMAIL, password: NEW },
    });
    const changed = await call(base, "/api/auth/password/change", {
      token,
      body: { currentPassword: NEW, newPassword: OLD },
    });
    expect(changed).toEqual({
      status: 200,
      body: { changed: true, revoked_sessions: 1 },
      cookie: null,
    });
    expect((await call(base, "/api/auth/me", { method: "GET", token })).status).toBe(200);
    const revoked = await call(base, "/api/auth/me", {
      method: "GET",
      token: String(other.body.token),
    });
    expect(revoked.status).toBe(401);
  });

  it("answers bad input with the usual envelopes, never a 500", async () => {
    const f = fixture();
    const { token, context } = await f.registerVerified(EMAIL, OLD);
    const key = await f.auth.createApiKey(context, { name: "k" });
    const base = await serve(f);
    const cases: [string, Parameters<typeof call>[2], number, string][] = [
      ["/api/auth/password/reset/send", { raw: "{not json" }, 400, "INVALID_JSON"],
      ["/api/auth/password/reset/send", { raw: "[1,2]" }, 400, "MISSING_EMAIL"],
      ["/api/auth/password/reset/send", { body: { email: { a: 1 } } }, 400, "INVALID_EMAIL"],
      ["/api/auth/password/reset", { body: { email: EMAIL, password: NEW } }, 400, "MISSING_CODE"],
      [
        "/api/auth/password/reset",
        { body: { email: EMAIL, code: "123456", password: ["x"] } },
        400,
        "INVALID_PASSWORD",
      ],
      [
        "/api/auth/password/reset",
        { body: { email: EMAIL, code: "123456", password: NEW } },
        401,
        "INVALID_CODE",
      ],
      ["/api/auth/password/change", { body: {} }, 401, "AUTH_REQUIRED"],
      [
        "/api/auth/password/change",
        { token: key.key, body: { currentPassword: OLD, newPassword: NEW } },
        403,
        "API_KEY_AUTH_FORBIDDEN",
      ],
      [
        "/api/auth/password/change",
        { token, body: { currentPassword: "wrong password!", newPassword: NEW } },
        400,
        "INVALID_CREDENTIALS",
      ],
      [
        "/api/auth/password/change",
        { token, body: { currentPassword: OLD, newPassword: 7 } },
        400,
        "INVALID_PASSWORD",
      ],
      ["/api/auth/password/change", { token, raw: "nope" }, 400, "INVALID_JSON"],
    ];
    for (const [path, init, status, code] of cases) {
      const answer = await call(base, path, init);
      expect({ path, init, status: answer.status, body: answer.body }).toEqual({
        path,
        init,
        status,
        body: expect.objectContaining({ error: { code, message: expect.any(String) } }),
      });
    }
    const guest = await call(base, "/api/auth/guest");
    const asGuest = await call(base, "/api/auth/password/change", {
      token: String(guest.body.token),
      body: { currentPassword: OLD, newPassword: NEW },
    });
    expect(asGuest).toMatchObject({ status: 403, body: { error: { code: "GUEST_NOT_ALLOWED" } } });
  });

  it("reset/send is CAPTCHA-gated before any database work", async () => {
    const f = fixture();
    await f.registerVerified(EMAIL, OLD);
    const auth = f.createAuth({
      devMode: true,
      captcha: { provider: "turnstile", verify: async (token) => token === "ok" },
    });
    const base = await serve(f, { auth });
    const refused = await call(base, "/api/auth/password/reset/send", { body: { email: EMAIL } });
    expect(refused).toMatchObject({ status: 400, body: { error: { code: "CAPTCHA_FAILED" } } });
    const rows = await f.tables
      .selectFrom("svc_codes")
      .select("id")
      .where("purpose", "=", "reset")
      .execute();
    expect(rows).toEqual([]);
    const passed = await call(base, "/api/auth/password/reset/send", {
      body: { email: EMAIL, captchaToken: "ok" },
    });
    expect(passed.status).toBe(200);
  });

  it("reset is limited per account and change per user", async () => {
    const f = fixture();
    const { token } = await f.registerVerified(EMAIL, OLD);
    const base = await serve(f, {
      router: {
        rateLimit: { perAccount: { limit: 2, windowMs: 60_000 }, now: f.clock.now },
      },
    });
    const reset = { body: { email: EMAIL, code: "123456", password: NEW } };
    expect((await call(base, "/api/auth/password/reset", reset)).status).toBe(401);
    expect((await call(base, "/api/auth/password/reset", reset)).status).toBe(401);
    const limited = await call(base, "/api/auth/password/reset", reset);
    expect(limited).toMatchObject({ status: 429, body: { error: { code: "RATE_LIMITED" } } });
    const change = { token, body: { currentPassword: "wrong password!", newPassword: NEW } };
    expect((await call(base, "/api/auth/password/change", change)).status).toBe(400);
    expect((await call(base, "/api/auth/password/change", change)).status).toBe(400);
    expect((await call(base, "/api/auth/password/change", change)).status).toBe(429);
  });
});
