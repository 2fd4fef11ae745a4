import { testDatabases } from "@svc/tooling/databases";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startOnFreshDatabase } from "./app-server.js";
import {
  type AuthTestServer,
  createClock,
  createTestDatabase,
  emailSequence,
  errorOf,
  type HttpStub,
  post,
  readJSON,
  registerPassword,
  request,
  sessionSetCookie,
  signInWithMagicCode,
  startAuthServer,
  startHttpStub,
  TRUSTED_ORIGIN,
} from "./auth-fixtures.js";
import { adminRequest, databaseEnv } from "./fixtures.js";

const DEV = { SVC_DEV_MODE: "true", SVC_RATE_LIMIT: "off" } as const;
const PASSWORD = "correct horse battery";
const GOOD_CAPTCHA = "solved-challenge";
const CAPTCHA_SECRET = "captcha-secret-for-tests";
/** The public address of the production-shaped server, which Host never names (a proxy in front). */
const PUBLIC_URL = "https://api.example.com";

/** A code guaranteed to differ from `code`. */
function wrongCodeFor(code: string): string {
  return String((Number(code) + 1) % 1_000_000).padStart(6, "0");
}

/** Checks a 429 `RATE_LIMITED`: `retry_after_secs` in the body and one equal `Retry-After` header. */
async function expectRateLimited(
  response: Response | Promise<Response>,
  retryAfterSecs?: number,
): Promise<void> {
  const error = await errorOf(response);
  expect(error).toMatchObject({ status: 429, code: "RATE_LIMITED" });
  const seconds = error.body.retry_after_secs;
  expect(Number.isInteger(seconds) && (seconds as number) >= 1).toBe(true);
  if (retryAfterSecs !== undefined) expect(seconds).toBe(retryAfterSecs);
  // Soft, so a test goes on past a malformed header. Regression: the sign-in
  // limiters answered `Retry-After: 60, 60` (express-rate-limit sets the
  // header, then the error handler appends the AuthError's own).
  expect.soft(error.headers.get("retry-after")).toBe(String(seconds));
}

/** A stand-in for the CAPTCHA provider's siteverify endpoint: only `GOOD_CAPTCHA` passes. */
function startCaptchaProvider(): Promise<HttpStub> {
  return startHttpStub((received) => ({
    status: 200,
    body: { success: new URLSearchParams(received.body).get("response") === GOOD_CAPTCHA },
  }));
}

describe.each(testDatabases())("sign-in abuse controls on $name", (database) => {
  let server: AuthTestServer;
  const nextEmail = emailSequence(`abuse-${database.name}`);

  beforeAll(async () => {
    server = await startOnFreshDatabase(database, DEV);
  });
  afterAll(() => server?.[Symbol.asyncDispose]());

  describe("send cooldown", () => {
    it.each([
      ["/api/auth/magic/send", (email: string) => ({ email })],
      ["/api/auth/magic-link/send", (email: string) => ({ email })],
    ])("answers a second %s within a minute with 429 and Retry-After", async (path, body) => {
      const email = nextEmail();
      expect((await post(server, path, body(email))).status).toBe(200);
      await expectRateLimited(post(server, path, body(email)), 60);
      server.clock.advance(45_000);
      await expectRateLimited(post(server, path, body(email)), 15);
      // Another address is not held back.
      expect((await post(server, path, body(nextEmail()))).status).toBe(200);
      server.clock.advance(15_000);
      expect((await post(server, path, body(email))).status).toBe(200);
    });

    it("holds back a second verification email the same way", async () => {
      const { token } = await registerPassword(server, nextEmail(), PASSWORD);
      const send = () => post(server, "/api/auth/email/send-verification", {}, { token });
      expect((await send()).status).toBe(200);
      await expectRateLimited(send(), 60);
    });
  });

  describe("wrong-guess cap", () => {
    it("refuses even the right magic code after 5 wrong ones with 429", async () => {
      const email = nextEmail();
      const sent = await readJSON<{ dev_code: string }>(
        post(server, "/api/auth/magic/send", { email }),
      );
      const code = sent.body.dev_code;
      for (let attempt = 1; attempt <= 5; attempt += 1) {
        const error = await errorOf(
          post(server, "/api/auth/magic/verify", { email, code: wrongCodeFor(code) }),
        );
        expect(error).toMatchObject({ status: 401, code: "INVALID_CODE" });
      }
      await expectRateLimited(post(server, "/api/auth/magic/verify", { email, code }));

      // A fresh code, once the cooldown is over, works again.
      server.clock.advance(60_000);
      await signInWithMagicCode(server, email);
    });

    it("refuses even the right verification code after 5 wrong ones with 429", async () => {
      const { token } = await registerPassword(server, nextEmail(), PASSWORD);
      const sent = await readJSON<{ dev_code: string }>(
        post(server, "/api/auth/email/send-verification", {}, { token }),
      );
      const code = sent.body.dev_code;
      for (let attempt = 1; attempt <= 5; attempt += 1) {
        const error = await errorOf(
          post(server, "/api/auth/email/verify", { code: wrongCodeFor(code) }, { token }),
        );
        expect(error).toMatchObject({ status: 400, code: "INVALID_CODE" });
      }
      await expectRateLimited(post(server, "/api/auth/email/verify", { code }, { token }));
    });
  });

  describe("code expiry and races", () => {
    it("accepts a code until 10 minutes after the send, not at 10 minutes", async () => {
      const early = nextEmail();
      const late = nextEmail();
      const codes: Record<string, string> = {};
      for (const email of [early, late]) {
        const sent = await readJSON<{ dev_code: string }>(
          post(server, "/api/auth/magic/send", { email }),
        );
        codes[email] = sent.body.dev_code;
      }
      server.clock.advance(10 * 60_000 - 1);
      const accepted = await post(server, "/api/auth/magic/verify", {
        email: early,
        code: codes[early],
      });
      expect(accepted.status).toBe(200);
      server.clock.advance(1);
      const expired = await errorOf(
        post(server, "/api/auth/magic/verify", { email: late, code: codes[late] }),
      );
      expect(expired).toMatchObject({ status: 401, code: "INVALID_CODE" });
    });

    it("lets exactly one of five concurrent right guesses sign in", async () => {
      const email = nextEmail();
      const sent = await readJSON<{ dev_code: string }>(
        post(server, "/api/auth/magic/send", { email }),
      );
      const answers = await Promise.all(
        Array.from({ length: 5 }, () =>
          readJSON(post(server, "/api/auth/magic/verify", { email, code: sent.body.dev_code })),
        ),
      );
      expect(answers.map((answer) => answer.status).sort()).toEqual([200, 401, 401, 401, 401]);
    });

    it("issues exactly one code for five concurrent sends", async () => {
      const email = nextEmail();
      const answers = await Promise.all(
        Array.from({ length: 5 }, () => readJSON(post(server, "/api/auth/magic/send", { email }))),
      );
      expect(answers.map((answer) => answer.status).sort()).toEqual([200, 429, 429, 429, 429]);
      const winner = answers.find((answer) => answer.status === 200)?.body as
        | { dev_code: string }
        | undefined;
      const code = winner?.dev_code;
      expect((await post(server, "/api/auth/magic/verify", { email, code })).status).toBe(200);
    });
  });

  describe("CAPTCHA gate", () => {
    let provider: HttpStub;
    let gated: AuthTestServer;
    let disposeGatedDatabase: (() => Promise<void>) | undefined;

    beforeAll(async () => {
      provider = await startCaptchaProvider();
      const db = await createTestDatabase(database);
      disposeGatedDatabase = () => db[Symbol.asyncDispose]();
      gated = await startAuthServer({
        ...DEV,
        ...databaseEnv(db.target),
        SVC_CAPTCHA_PROVIDER: "turnstile",
        SVC_CAPTCHA_SECRET: CAPTCHA_SECRET,
        SVC_CAPTCHA_VERIFY_URL: `${provider.url}/siteverify`,
      });
    });
    afterAll(async () => {
      await gated?.[Symbol.asyncDispose]();
      await disposeGatedDatabase?.();
      await provider?.[Symbol.asyncDispose]();
    });

    const gatedEndpoints: [string, (email: string) => Record<string, unknown>][] = [
      ["/api/auth/magic/send", (email) => ({ email })],
      ["/api/auth/password/register", (email) => ({ email, password: PASSWORD })],
      ["/api/auth/phone/send-code", () => ({ phone: "+14155550100" })],
      ["/api/auth/magic-link/send", (email) => ({ email })],
    ];

    it.each(
      gatedEndpoints.flatMap(([path, body]) => [
        [path, "missing", body] as const,
        [path, "wrong", body] as const,
        [path, "non-string", body] as const,
      ]),
    )("answers %s with a %s captchaToken with 400 CAPTCHA_FAILED", async (path, kind, body) => {
      const captchaToken = { missing: undefined, wrong: "forged", "non-string": 12345 }[kind];
      const error = await errorOf(post(gated, path, { ...body(nextEmail()), captchaToken }));
      expect(error).toMatchObject({
        status: 400,
        code: "CAPTCHA_FAILED",
        message: "CAPTCHA verification failed",
      });
    });

    it.each([
      ["/api/auth/magic/send", 200],
      ["/api/auth/password/register", 200],
      ["/api/auth/magic-link/send", 200],
      // Past the gate: the todo app's User has no phone field.
      ["/api/auth/phone/send-code", 501],
    ])("lets %s with a solved challenge through to the flow (%i)", async (path, status) => {
      const body = gatedEndpoints.find(([candidate]) => candidate === path)?.[1] ?? (() => ({}));
      const response = await post(gated, path, {
        ...body(nextEmail()),
        captchaToken: GOOD_CAPTCHA,
      });
      expect(response.status).toBe(status);
    });

    it("sends the provider the secret, the token and the client address", async () => {
      provider.requests.length = 0;
      await post(gated, "/api/auth/magic/send", { email: nextEmail(), captchaToken: "forged" });
      expect(provider.requests).toHaveLength(1);
      const [asked] = provider.requests;
      expect(asked?.method).toBe("POST");
      expect(asked?.url).toBe("/siteverify");
      const form = new URLSearchParams(asked?.body);
      expect(form.get("secret")).toBe(CAPTCHA_SECRET);
      expect(form.get("response")).toBe("forged");
      expect(form.get("remoteip")).toBe("127.0.0.1");
    });

    it.each(["/api/auth/magic/send", "/api/auth/magic-link/send"])(
      "spends no cooldown on a failed challenge at %s",
      async (path) => {
        const email = nextEmail();
        const failed = await errorOf(post(gated, path, { email, captchaToken: "forged" }));
        expect(failed.code).toBe("CAPTCHA_FAILED");
        const passed = await post(gated, path, { email, captchaToken: GOOD_CAPTCHA });
        expect(passed.status).toBe(200);
      },
    );

    it("creates no account on a failed challenge at password/register", async () => {
      const email = nextEmail();
      const failed = await errorOf(
        post(gated, "/api/auth/password/register", { email, password: PASSWORD }),
      );
      expect(failed.code).toBe("CAPTCHA_FAILED");
      const where = encodeURIComponent(JSON.stringify({ email }));
      const users = await adminRequest(gated, "GET", `/api/entities/User?where=${where}`);
      expect(await users.json()).toEqual([]);
      const login = await errorOf(
        post(gated, "/api/auth/password/login", { email, password: PASSWORD }),
      );
      expect(login).toMatchObject({ status: 401, code: "INVALID_CREDENTIALS" });
      const registered = await post(gated, "/api/auth/password/register", {
        email,
        password: PASSWORD,
        captchaToken: GOOD_CAPTCHA,
      });
      expect(registered.status).toBe(200);
    });

    it("fails closed when the provider answers 500", async () => {
      const respond = provider.respond;
      provider.respond = () => ({ status: 500, body: { success: true } });
      try {
        const error = await errorOf(
          post(gated, "/api/auth/magic/send", { email: nextEmail(), captchaToken: GOOD_CAPTCHA }),
        );
        expect(error).toMatchObject({ status: 400, code: "CAPTCHA_FAILED" });
      } finally {
        provider.respond = respond;
      }
    });

    it("leaves endpoints without a gate alone", async () => {
      const error = await errorOf(
        post(gated, "/api/auth/magic/verify", { email: nextEmail(), code: "000000" }),
      );
      expect(error).toMatchObject({ status: 401, code: "INVALID_CODE" });
    });
  });

  describe("half-configured CAPTCHA", () => {
    it.each([
      ["only SVC_CAPTCHA_PROVIDER", { SVC_CAPTCHA_PROVIDER: "turnstile" }],
      ["only SVC_CAPTCHA_SECRET", { SVC_CAPTCHA_SECRET: CAPTCHA_SECRET }],
    ])("keeps the gate off with %s", async (_label, captchaEnv) => {
      await using provider = await startCaptchaProvider();
      await using db = await createTestDatabase(database);
      await using open = await startAuthServer({
        ...DEV,
        ...databaseEnv(db.target),
        ...captchaEnv,
        SVC_CAPTCHA_VERIFY_URL: `${provider.url}/siteverify`,
      });
      expect(open.warnings.some((warning) => warning.includes("CAPTCHA gate is off"))).toBe(true);
      const sent = await post(open, "/api/auth/magic/send", { email: nextEmail() });
      expect(sent.status).toBe(200);
      const registered = await post(open, "/api/auth/password/register", {
        email: nextEmail(),
        password: PASSWORD,
      });
      expect(registered.status).toBe(200);
      expect(provider.requests).toEqual([]);
    });
  });

  describe("sign-in rate limits", () => {
    /**
     * A server with the limits on (SVC_RATE_LIMIT unset) on its own database,
     * its clock starting at the real time so every clock in play agrees.
     */
    async function startLimitedServer() {
      const db = await createTestDatabase(database);
      const limited = await startAuthServer(
        { SVC_DEV_MODE: "true", ...databaseEnv(db.target) },
        createClock(Date.now()),
      );
      return Object.assign(limited, {
        async [Symbol.asyncDispose]() {
          await limited.close({ drainSeconds: 0 });
          await db[Symbol.asyncDispose]();
        },
      });
    }

    const cheapRequests: [string, (server: { url: string }, i: number) => Promise<Response>][] = [
      ["POST /api/auth/guest", (target) => post(target, "/api/auth/guest")],
      [
        "POST /api/auth/magic/verify with a wrong code",
        (target, i) =>
          post(target, "/api/auth/magic/verify", {
            email: `burst-${i}@example.com`,
            code: "000000",
          }),
      ],
    ];

    it.each(cheapRequests)(
      "refuses the 61st sign-in request of a minute from one IP (%s), until the window passes",
      async (_label, send) => {
        await using limited = await startLimitedServer();
        for (let i = 0; i < 60; i += 1) {
          const response = await send(limited, i);
          expect(response.status, `request ${i + 1}`).not.toBe(429);
          await response.arrayBuffer();
        }
        await expectRateLimited(send(limited, 60), 60);
        // Every sign-in endpoint shares the per-IP budget.
        await expectRateLimited(post(limited, "/api/auth/magic/send", { email: "x@example.com" }));

        limited.clock.advance(59_000);
        await expectRateLimited(send(limited, 61), 1);
        limited.clock.advance(1_000);
        const after = await send(limited, 62);
        expect(after.status).not.toBe(429);
      },
    );

    it("keys the per-IP limit on the socket address, not X-Forwarded-For", async () => {
      await using limited = await startLimitedServer();
      const spoofed = (i: number) =>
        post(limited, "/api/auth/guest", {}, { headers: { "x-forwarded-for": `203.0.113.${i}` } });
      for (let i = 0; i < 60; i += 1) {
        const response = await spoofed(i);
        expect(response.status, `request ${i + 1}`).toBe(200);
        await response.arrayBuffer();
      }
      await expectRateLimited(spoofed(60), 60);
    });

    it("refuses the 21st attempt on one account within 15 minutes", async () => {
      await using limited = await startLimitedServer();
      const email = "target@example.com";
      for (let i = 0; i < 20; i += 1) {
        const error = await errorOf(
          post(limited, "/api/auth/magic/verify", { email, code: "000000" }),
        );
        expect(error.code, `attempt ${i + 1}`).toBe("INVALID_CODE");
      }
      await expectRateLimited(
        post(limited, "/api/auth/magic/verify", { email: ` ${email.toUpperCase()}`, code: "1" }),
        15 * 60,
      );
      const other = await errorOf(
        post(limited, "/api/auth/magic/verify", { email: "other@example.com", code: "000000" }),
      );
      expect(other.code).toBe("INVALID_CODE");
    });

    it("never limits with SVC_RATE_LIMIT=off", async () => {
      for (let i = 0; i < 70; i += 1) {
        const response = await post(server, "/api/auth/guest");
        expect(response.status, `request ${i + 1}`).toBe(200);
        await response.arrayBuffer();
      }
      for (let i = 0; i < 10; i += 1) {
        const error = await errorOf(
          post(server, "/api/auth/magic/verify", { email: `off-${i}@example.com`, code: "000000" }),
        );
        expect(error.code).toBe("INVALID_CODE");
      }
    });
  });

  describe("CSRF", () => {
    let production: AuthTestServer;
    let disposeProductionDatabase: (() => Promise<void>) | undefined;
    let token: string;
    let loginEmail: string;

    // Outside dev mode: dev mode trusts every origin. Behind a proxy that
    // rewrites Host: the browser's origin is only known from SVC_PUBLIC_URL.
    beforeAll(async () => {
      const db = await createTestDatabase(database);
      disposeProductionDatabase = () => db[Symbol.asyncDispose]();
      production = await startAuthServer({
        SVC_RATE_LIMIT: "off",
        SVC_PUBLIC_URL: PUBLIC_URL,
        ...databaseEnv(db.target),
      });
      loginEmail = nextEmail();
      ({ token } = await registerPassword(production, loginEmail, PASSWORD));
    });
    afterAll(async () => {
      await production?.[Symbol.asyncDispose]();
      await disposeProductionDatabase?.();
    });

    async function todosTitled(title: string): Promise<unknown[]> {
      const where = encodeURIComponent(JSON.stringify({ title }));
      const response = await adminRequest(production, "GET", `/api/entities/Todo?where=${where}`);
      return (await response.json()) as unknown[];
    }

    it.each([
      ["an untrusted Origin", { origin: "https://evil.example" }],
      ["Origin: null", { origin: "null" }],
      ["Sec-Fetch-Site: cross-site without Origin", { "sec-fetch-site": "cross-site" }],
      ["Sec-Fetch-Site: same-site without Origin", { "sec-fetch-site": "same-site" }],
    ])(
      "refuses a cookie-authenticated change with %s (403 CSRF_FAILED)",
      async (label, headers) => {
        const title = `csrf refused: ${label}`;
        const error = await errorOf(
          post(production, "/api/fn/createTodo", { title }, { cookie: token, headers }),
        );
        expect(error).toMatchObject({ status: 403, code: "CSRF_FAILED" });
        expect(await todosTitled(title)).toEqual([]);
      },
    );

    it.each([
      [
        "the cookie and the manifest's trusted origin",
        "cookie",
        () => ({ origin: TRUSTED_ORIGIN }),
      ],
      ["the cookie and the server's own origin", "cookie", () => ({ origin: production.url })],
      // Regression (issue 21): behind a proxy the Host is the upstream's,
      // so the public address's origin was refused.
      [
        "the cookie and SVC_PUBLIC_URL's origin under another Host",
        "cookie",
        () => ({ origin: new URL(PUBLIC_URL).origin }),
      ],
      [
        "the cookie and Sec-Fetch-Site: same-origin",
        "cookie",
        () => ({ "sec-fetch-site": "same-origin" }),
      ],
      ["the bearer and an untrusted Origin", "bearer", () => ({ origin: "https://evil.example" })],
    ] as const)("accepts a change with %s", async (label, credential, headersOf) => {
      const title = `csrf accepted: ${label}`;
      const headers: Record<string, string> = headersOf();
      const response = await post(
        production,
        "/api/fn/createTodo",
        { title },
        credential === "cookie" ? { cookie: token, headers } : { token, headers },
      );
      expect(response.status).toBe(200);
      expect(await todosTitled(title)).toHaveLength(1);
    });

    it("does not let another site sign the user out", async () => {
      const error = await errorOf(
        request(production, "DELETE", "/api/auth/session", {
          cookie: token,
          headers: { origin: "https://evil.example" },
        }),
      );
      expect(error).toMatchObject({ status: 403, code: "CSRF_FAILED" });
      const me = await request(production, "GET", "/api/auth/me", { token });
      expect(me.status).toBe(200);
    });

    // Regression (issue 21, finding 5): the sign-in routes set the cookie
    // for any origin and content type, so a page elsewhere could sign the
    // browser into the attacker's account with a text/plain form.
    it.each([
      [
        "password login",
        "/api/auth/password/login",
        () => ({ email: loginEmail, password: PASSWORD }),
      ],
      ["guest", "/api/auth/guest", () => undefined],
    ])(
      "refuses a %s from another site's form (403 CSRF_FAILED, no cookie)",
      async (_, path, bodyOf) => {
        const body = bodyOf();
        const refusals: Record<string, string>[] = [
          { origin: "https://evil.example", "content-type": "text/plain" },
          { origin: "https://evil.example", "content-type": "application/json" },
          { origin: TRUSTED_ORIGIN, "content-type": "text/plain" },
          { "sec-fetch-site": "cross-site", "content-type": "text/plain" },
        ];
        for (const headers of refusals) {
          const response = request(production, "POST", path, {
            headers,
            ...(body !== undefined && { rawBody: JSON.stringify(body) }),
          });
          const error = await errorOf(response);
          expect(error, JSON.stringify(headers)).toMatchObject({
            status: 403,
            code: "CSRF_FAILED",
          });
          expect(sessionSetCookie(error)).toBeUndefined();
        }
      },
    );

    it.each([
      ["the manifest's trusted origin", { origin: TRUSTED_ORIGIN }],
      ["SVC_PUBLIC_URL's origin under another Host", { origin: new URL(PUBLIC_URL).origin }],
      ["the server's own origin", { origin: "" }],
      ["no Origin (a native client)", {}],
    ])("signs in with the cookie from %s", async (_, headers: { origin?: string }) => {
      const response = await post(
        production,
        "/api/auth/password/login",
        { email: loginEmail, password: PASSWORD },
        { headers: headers.origin === "" ? { origin: production.url } : headers },
      );
      expect(response.status).toBe(200);
      expect(sessionSetCookie(response)).toMatch(/^svc_session=svc_/);
    });

    it("lets safe methods through with any origin", async () => {
      const me = await request(production, "GET", "/api/auth/me", {
        cookie: token,
        headers: { origin: "https://evil.example" },
      });
      expect(me.status).toBe(200);
    });
  });
});
