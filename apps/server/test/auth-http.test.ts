import { join } from "node:path";
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
  type SignInBody,
  sessionSetCookie,
  signInWithMagicCode,
  startAuthServer,
  startHttpStub,
  type TestClock,
} from "./auth-fixtures.js";
import { adminRequest, databaseEnv, tempDir } from "./fixtures.js";

const THIRTY_DAYS_SECS = 30 * 24 * 60 * 60;
const DEV = { SVC_DEV_MODE: "true", SVC_RATE_LIMIT: "off" } as const;

/** The spec's `emailVerified` format: whole seconds, `Z`. */
function isoSeconds(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z");
}

interface MeBody {
  user_id: string;
  via: string;
  is_guest: boolean;
  session_id: string | null;
  user: Record<string, unknown> | null;
}

describe.each(testDatabases())("auth over HTTP on $name", (database) => {
  let server: AuthTestServer;
  let clock: TestClock;
  const nextEmail = emailSequence(`http-${database.name}`);

  beforeAll(async () => {
    clock = createClock();
    server = await startOnFreshDatabase(database, DEV, clock);
  });
  afterAll(() => server?.[Symbol.asyncDispose]());

  describe("guest sessions", () => {
    it("answers {token, user_id} and sets the session cookie", async () => {
      const response = await post(server, "/api/auth/guest");
      const { status, body } = await readJSON<{ token: string; user_id: string }>(response);
      expect(status).toBe(200);
      expect(Object.keys(body).sort()).toEqual(["token", "user_id"]);
      expect(body.token).toMatch(/^svc_[A-Za-z0-9_-]{43}$/);
      expect(body.user_id).toMatch(/^[0-9a-f]{40}$/);
      expect(sessionSetCookie(response)).toMatch(
        new RegExp(`^svc_session=${body.token};.*HttpOnly`),
      );

      const me = await readJSON<MeBody>(
        request(server, "GET", "/api/auth/me", { token: body.token }),
      );
      expect(me.body).toEqual({
        user_id: body.user_id,
        via: "guest",
        is_guest: true,
        session_id: expect.stringMatching(/^[0-9a-f]{64}$/),
        user: null,
      });
    });

    // No function of the todo example is declared `auth: "guest"`, so a guest may call none.
    it.each([
      ["createTodo", { title: "guest todo" }],
      ["listTodos", {}],
      ["createList", { title: "guest list" }],
      ["toggleTodo", { id: "0".repeat(40) }],
      ["summary", {}],
    ])("refuses a guest calling %s with 403 GUEST_NOT_ALLOWED", async (name, args) => {
      const { body } = await readJSON<{ token: string }>(post(server, "/api/auth/guest"));
      const error = await errorOf(post(server, `/api/fn/${name}`, args, { token: body.token }));
      expect(error).toMatchObject({ status: 403, code: "GUEST_NOT_ALLOWED" });
    });

    it("writes nothing for a refused guest call", async () => {
      const { body } = await readJSON<{ token: string }>(post(server, "/api/auth/guest"));
      const title = `guest-write-${database.name}`;
      await post(server, "/api/fn/createTodo", { title }, { token: body.token });
      const where = encodeURIComponent(JSON.stringify({ title }));
      const rows = await adminRequest(server, "GET", `/api/entities/Todo?where=${where}`);
      expect(await rows.json()).toEqual([]);
    });
  });

  describe("magic code sign-in", () => {
    it("sends {sent, email, dev_code} with the address normalised", async () => {
      const email = nextEmail();
      const { status, body } = await readJSON(
        post(server, "/api/auth/magic/send", { email: `  ${email.toUpperCase()} ` }),
      );
      expect(status).toBe(200);
      expect(body).toEqual({ sent: true, email, dev_code: expect.stringMatching(/^\d{6}$/) });
    });

    it("verifies into {token, user_id, expires_at} with an HttpOnly session cookie", async () => {
      const email = nextEmail();
      const sent = await readJSON<{ dev_code: string }>(
        post(server, "/api/auth/magic/send", { email }),
      );
      const response = await post(server, "/api/auth/magic/verify", {
        email,
        code: sent.body.dev_code,
      });
      const { status, body } = await readJSON<SignInBody>(response);
      expect(status).toBe(200);
      expect(Object.keys(body).sort()).toEqual(["expires_at", "token", "user_id"]);
      expect(body.token).toMatch(/^svc_[A-Za-z0-9_-]{43}$/);
      expect(body.user_id).toMatch(/^[0-9a-f]{40}$/);
      expect(body.expires_at).toBe(Math.floor(clock.now() / 1000) + THIRTY_DAYS_SECS);
      const cookie = sessionSetCookie(response) ?? "";
      expect(cookie.split("; ").sort()).toEqual(
        [
          `svc_session=${body.token}`,
          "HttpOnly",
          "Path=/",
          `Max-Age=${THIRTY_DAYS_SECS}`,
          "SameSite=Lax",
        ].sort(),
      );
    });

    it("spends a code once", async () => {
      const email = nextEmail();
      const sent = await readJSON<{ dev_code: string }>(
        post(server, "/api/auth/magic/send", { email }),
      );
      const code = sent.body.dev_code;
      expect((await post(server, "/api/auth/magic/verify", { email, code })).status).toBe(200);
      const again = await errorOf(post(server, "/api/auth/magic/verify", { email, code }));
      expect(again).toMatchObject({ status: 401, code: "INVALID_CODE" });
    });

    it("shows the new User row with emailVerified on GET /api/auth/me", async () => {
      const email = nextEmail();
      const signedIn = await signInWithMagicCode(server, email);
      const me = await readJSON<MeBody>(
        request(server, "GET", "/api/auth/me", { token: signedIn.token }),
      );
      expect(me.status).toBe(200);
      expect(me.body).toEqual({
        user_id: signedIn.user_id,
        via: "session",
        is_guest: false,
        session_id: expect.stringMatching(/^[0-9a-f]{64}$/),
        user: expect.objectContaining({
          id: signedIn.user_id,
          email,
          emailVerified: isoSeconds(clock.now()),
        }),
      });
    });

    it("stamps emailVerified on an unverified password account that signs in by code", async () => {
      const email = nextEmail();
      const registered = await registerPassword(server, email);
      const signedIn = await signInWithMagicCode(server, email);
      expect(signedIn.user_id).toBe(registered.user_id);
      const me = await readJSON<MeBody>(
        request(server, "GET", "/api/auth/me", { token: signedIn.token }),
      );
      expect(me.body.user).toMatchObject({ email, emailVerified: isoSeconds(clock.now()) });
    });

    // Account pre-hijacking: anyone may register a password for an address
    // they do not own. The owner's code sign-in used to land in that account
    // with the registrant's password and session still working.
    it("ends the registrant's password and sessions when the address's owner signs in by code", async () => {
      const email = nextEmail();
      const password = "someone else's password";
      const registered = await registerPassword(server, email, password);
      const key = await readJSON<{ key: string }>(
        post(server, "/api/auth/api-keys", { name: "backdoor" }, { token: registered.token }),
      );
      expect(key.status).toBe(200);
      const owner = await signInWithMagicCode(server, email);
      expect(owner.user_id).toBe(registered.user_id);
      for (const token of [registered.token, key.body.key]) {
        const error = await errorOf(request(server, "GET", "/api/auth/me", { token }));
        expect(error.status).toBe(401);
      }
      expect(
        await errorOf(post(server, "/api/auth/password/login", { email, password })),
      ).toMatchObject({ status: 401, code: "INVALID_CREDENTIALS" });
      const audit = await readJSON<{ events: { kind: string; data: unknown }[] }>(
        request(server, "GET", "/api/auth/audit?kind=AccountClaim", { token: owner.token }),
      );
      expect(audit.body.events).toEqual([
        expect.objectContaining({
          kind: "AccountClaim",
          data: expect.objectContaining({ method: "magic-code", sessions: 1, api_keys: 1 }),
        }),
      ]);
      const me = await readJSON<MeBody>(
        request(server, "GET", "/api/auth/me", { token: owner.token }),
      );
      expect(me.status).toBe(200);
    });

    it("keeps the password and the session of a user who verified their own address first", async () => {
      const email = nextEmail();
      const password = "my own long password";
      const registered = await registerPassword(server, email, password);
      const token = registered.token;
      const sent = await readJSON<{ dev_code: string }>(
        post(server, "/api/auth/email/send-verification", {}, { token }),
      );
      expect(
        (await post(server, "/api/auth/email/verify", { code: sent.body.dev_code }, { token }))
          .status,
      ).toBe(200);
      const byCode = await signInWithMagicCode(server, email);
      expect(byCode.user_id).toBe(registered.user_id);
      expect((await request(server, "GET", "/api/auth/me", { token })).status).toBe(200);
      const login = await readJSON<SignInBody>(
        post(server, "/api/auth/password/login", { email, password }),
      );
      expect(login).toMatchObject({ status: 200, body: { user_id: registered.user_id } });
    });

    it("signs the same address into the same user again", async () => {
      const email = nextEmail();
      const first = await signInWithMagicCode(server, email);
      clock.advance(61_000);
      const second = await signInWithMagicCode(server, email);
      expect(second.user_id).toBe(first.user_id);
      expect(second.token).not.toBe(first.token);
    });
  });

  describe("magic link sign-in", () => {
    it("signs in through the emailed link, as JSON without a callback", async () => {
      const email = nextEmail();
      const sent = await readJSON<{ dev_link: string }>(
        post(server, "/api/auth/magic-link/send", { email }),
      );
      expect(sent).toMatchObject({ status: 200, body: { sent: true, email } });
      const link = new URL(sent.body.dev_link);
      expect(link.origin).toBe(server.url);
      expect(link.pathname).toBe("/api/auth/magic-link/verify");

      const response = await fetch(link);
      const { status, body } = await readJSON<SignInBody>(response);
      expect(status).toBe(200);
      expect(sessionSetCookie(response)).toMatch(new RegExp(`^svc_session=${body.token};`));
      const again = await errorOf(fetch(link));
      expect(again).toMatchObject({ status: 401, code: "INVALID_LINK" });
    });

    it("redirects to a trusted callback with the session cookie (303)", async () => {
      const email = nextEmail();
      const callback = "http://localhost:5173/signed-in";
      const sent = await readJSON<{ dev_link: string }>(
        post(server, "/api/auth/magic-link/send", { email, callback }),
      );
      const response = await fetch(sent.body.dev_link, { redirect: "manual" });
      expect(response.status).toBe(303);
      expect(response.headers.get("location")).toBe(callback);
      const token = /^svc_session=([^;]+);/.exec(sessionSetCookie(response) ?? "")?.[1] ?? "";
      const me = await readJSON<MeBody>(request(server, "GET", "/api/auth/me", { token }));
      expect(me.body.user).toMatchObject({ email, emailVerified: isoSeconds(clock.now()) });
    });

    it.each(["https://evil.example/", "//evil.example", "javascript:alert(1)", "/\t/evil.example"])(
      "refuses the callback %s with 400 INVALID_REDIRECT and sends nothing",
      async (callback) => {
        const email = nextEmail();
        const error = await errorOf(post(server, "/api/auth/magic-link/send", { email, callback }));
        expect(error).toMatchObject({ status: 400, code: "INVALID_REDIRECT" });
        // No cooldown was taken: nothing was issued.
        expect((await post(server, "/api/auth/magic-link/send", { email })).status).toBe(200);
      },
    );
  });

  describe("session lifetime", () => {
    it("ends a session exactly at expires_at", async () => {
      const signedIn = await signInWithMagicCode(server, nextEmail());
      const guest = await readJSON<{ token: string }>(post(server, "/api/auth/guest"));
      clock.advance(signedIn.expires_at * 1000 - clock.now() - 1000);
      for (const token of [signedIn.token, guest.body.token]) {
        expect((await request(server, "GET", "/api/auth/me", { token })).status).toBe(200);
      }
      clock.advance(1000);
      for (const token of [signedIn.token, guest.body.token]) {
        const error = await errorOf(request(server, "GET", "/api/auth/me", { token }));
        expect(error).toMatchObject({ status: 401, code: "INVALID_TOKEN" });
      }
    });
  });

  describe("the session as bearer and cookie", () => {
    it("creates todos owned by the caller and lists only the caller's rows", async () => {
      const alice = await signInWithMagicCode(server, nextEmail());
      const bob = await signInWithMagicCode(server, nextEmail());
      for (const [who, title] of [
        [alice, "alice 1"],
        [alice, "alice 2"],
        [bob, "bob 1"],
      ] as const) {
        const created = await readJSON<{ id: string }>(
          post(server, "/api/fn/createTodo", { title }, { token: who.token }),
        );
        expect(created.status, JSON.stringify(created.body)).toBe(200);
        expect(created.body.id).toMatch(/^[0-9a-f]{40}$/);
      }

      const listed = await readJSON<{ rows: { title: string; ownerId: string }[] }>(
        post(server, "/api/fn/listTodos", {}, { token: alice.token }),
      );
      expect(listed.status).toBe(200);
      expect(listed.body.rows.map((row) => row.title).sort()).toEqual(["alice 1", "alice 2"]);
      expect(new Set(listed.body.rows.map((row) => row.ownerId))).toEqual(new Set([alice.user_id]));

      const rest = await readJSON<{ title: string; ownerId: string }[]>(
        request(server, "GET", "/api/entities/Todo", { token: bob.token }),
      );
      expect(rest.status).toBe(200);
      expect(rest.body).toEqual([
        expect.objectContaining({ title: "bob 1", ownerId: bob.user_id }),
      ]);
    });

    it("authenticates GET /api/auth/me with the cookie alone", async () => {
      const signedIn = await signInWithMagicCode(server, nextEmail());
      const me = await readJSON<MeBody>(
        request(server, "GET", "/api/auth/me", { cookie: signedIn.token }),
      );
      expect(me.status).toBe(200);
      expect(me.body).toMatchObject({ user_id: signedIn.user_id, via: "session" });
    });

    it("treats a stale cookie as anonymous and clears it", async () => {
      const response = await request(server, "GET", "/api/auth/me", {
        cookie: "svc_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
      });
      expect(sessionSetCookie(response)).toMatch(/^svc_session=;.*Max-Age=0/);
      expect(await errorOf(response)).toMatchObject({ status: 401, code: "AUTH_REQUIRED" });
    });

    it("answers an unknown svc_ bearer with 401 INVALID_TOKEN", async () => {
      const error = await errorOf(
        request(server, "GET", "/api/auth/me", {
          token: "svc_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
        }),
      );
      expect(error).toMatchObject({ status: 401, code: "INVALID_TOKEN" });
    });
  });

  describe("sign-out", () => {
    it("revokes the current session with DELETE /api/auth/session and clears the cookie", async () => {
      const email = nextEmail();
      const device = await signInWithMagicCode(server, email);
      clock.advance(61_000);
      const other = await signInWithMagicCode(server, email);

      const response = await request(server, "DELETE", "/api/auth/session", {
        token: device.token,
      });
      expect(sessionSetCookie(response)).toMatch(/^svc_session=;.*Max-Age=0/);
      expect(await readJSON(response)).toMatchObject({ status: 200, body: { revoked: true } });

      const after = await errorOf(request(server, "GET", "/api/auth/me", { token: device.token }));
      expect(after).toMatchObject({ status: 401, code: "INVALID_TOKEN" });
      const kept = await request(server, "GET", "/api/auth/me", { token: other.token });
      expect(kept.status).toBe(200);
    });

    it("revokes a cookie session the same way", async () => {
      const device = await signInWithMagicCode(server, nextEmail());
      const response = await request(server, "DELETE", "/api/auth/session", {
        cookie: device.token,
      });
      expect(response.status).toBe(200);
      expect(sessionSetCookie(response)).toMatch(/^svc_session=;.*Max-Age=0/);
      const after = await errorOf(request(server, "GET", "/api/auth/me", { cookie: device.token }));
      expect(after).toMatchObject({ status: 401, code: "AUTH_REQUIRED" });
    });

    it("revokes every device with DELETE /api/auth/sessions", async () => {
      const email = nextEmail();
      const laptop = await signInWithMagicCode(server, email);
      clock.advance(61_000);
      const phone = await signInWithMagicCode(server, email);
      const stranger = await signInWithMagicCode(server, nextEmail());

      const listed = await readJSON<{ current: boolean; guest: boolean }[]>(
        request(server, "GET", "/api/auth/sessions", { token: phone.token }),
      );
      expect(listed.body).toHaveLength(2);
      expect(listed.body.filter((session) => session.current)).toHaveLength(1);

      const response = await request(server, "DELETE", "/api/auth/sessions", {
        token: laptop.token,
      });
      expect(sessionSetCookie(response)).toMatch(/^svc_session=;.*Max-Age=0/);
      expect(await readJSON(response)).toMatchObject({ status: 200, body: { revoked: 2 } });
      for (const token of [laptop.token, phone.token]) {
        const error = await errorOf(request(server, "GET", "/api/auth/me", { token }));
        expect(error).toMatchObject({ status: 401, code: "INVALID_TOKEN" });
      }
      const untouched = await request(server, "GET", "/api/auth/me", { token: stranger.token });
      expect(untouched.status).toBe(200);
    });

    it.each(["/api/auth/session", "/api/auth/sessions"])(
      "answers DELETE %s without a session with 401 AUTH_REQUIRED",
      async (path) => {
        const error = await errorOf(request(server, "DELETE", path));
        expect(error).toMatchObject({ status: 401, code: "AUTH_REQUIRED" });
      },
    );
  });

  describe("password sign-in", () => {
    it("registers, logs in and refuses wrong credentials alike", async () => {
      const email = nextEmail();
      const password = "correct horse battery";
      const response = await post(server, "/api/auth/password/register", {
        email: email.toUpperCase(),
        password,
      });
      const registered = await readJSON<SignInBody>(response);
      expect(registered.status).toBe(200);
      expect(Object.keys(registered.body).sort()).toEqual(["expires_at", "token", "user_id"]);
      expect(sessionSetCookie(response)).toMatch(
        new RegExp(`^svc_session=${registered.body.token};.*HttpOnly`),
      );

      const me = await readJSON<MeBody>(
        request(server, "GET", "/api/auth/me", { token: registered.body.token }),
      );
      expect(me.body.user).toMatchObject({ id: registered.body.user_id, email });
      expect(me.body.user?.emailVerified ?? null).toBeNull();

      const login = await readJSON<SignInBody>(
        post(server, "/api/auth/password/login", { email, password }),
      );
      expect(login.status).toBe(200);
      expect(login.body.user_id).toBe(registered.body.user_id);
      expect(login.body.token).not.toBe(registered.body.token);

      const wrong = await errorOf(
        post(server, "/api/auth/password/login", { email, password: "wrong password!" }),
      );
      const unknown = await errorOf(
        post(server, "/api/auth/password/login", { email: nextEmail(), password }),
      );
      expect(wrong).toMatchObject({ status: 401, code: "INVALID_CREDENTIALS" });
      expect(unknown).toMatchObject({ status: 401, code: "INVALID_CREDENTIALS" });
      expect(unknown.message).toBe(wrong.message);
    });

    it("refuses a second account for the address with 409 EMAIL_IN_USE", async () => {
      const email = nextEmail();
      await signInWithMagicCode(server, email);
      const error = await errorOf(
        post(server, "/api/auth/password/register", { email, password: "long enough password" }),
      );
      expect(error).toMatchObject({ status: 409, code: "EMAIL_IN_USE" });
    });

    it.each([
      ["a short password", "short", 400, "INVALID_PASSWORD"],
      ["no password", undefined, 400, "MISSING_PASSWORD"],
    ])("refuses %s", async (_label, password, status, code) => {
      const error = await errorOf(
        post(server, "/api/auth/password/register", { email: nextEmail(), password }),
      );
      expect(error).toMatchObject({ status, code });
    });
  });

  describe("email verification", () => {
    it("sends a code to the unverified user and stamps emailVerified", async () => {
      const email = nextEmail();
      const { token } = await registerPassword(server, email);
      const sent = await readJSON<{ dev_code: string }>(
        post(server, "/api/auth/email/send-verification", {}, { token }),
      );
      expect(sent).toMatchObject({
        status: 200,
        body: { sent: true, email, dev_code: expect.stringMatching(/^\d{6}$/) },
      });

      const wrong = String((Number(sent.body.dev_code) + 1) % 1_000_000).padStart(6, "0");
      const refused = await errorOf(
        post(server, "/api/auth/email/verify", { code: wrong }, { token }),
      );
      expect(refused).toMatchObject({ status: 400, code: "INVALID_CODE" });

      clock.advance(5_000);
      const verified = await readJSON(
        post(server, "/api/auth/email/verify", { code: sent.body.dev_code }, { token }),
      );
      const stamp = isoSeconds(clock.now());
      expect(verified).toMatchObject({
        status: 200,
        body: { verified: true, emailVerified: stamp },
      });
      const me = await readJSON<MeBody>(request(server, "GET", "/api/auth/me", { token }));
      expect(me.body.user).toMatchObject({ email, emailVerified: stamp });
    });

    it("answers an anonymous caller with 401 UNAUTHORIZED", async () => {
      const error = await errorOf(post(server, "/api/auth/email/send-verification"));
      expect(error).toMatchObject({ status: 401, code: "UNAUTHORIZED" });
    });

    it("answers a guest with 404 USER_NOT_FOUND", async () => {
      const { body } = await readJSON<{ token: string }>(post(server, "/api/auth/guest"));
      const error = await errorOf(
        post(server, "/api/auth/email/send-verification", {}, { token: body.token }),
      );
      expect(error).toMatchObject({ status: 404, code: "USER_NOT_FOUND" });
    });
  });

  describe("dev inbox", () => {
    it("lists the sent code's email, newest first", async () => {
      const email = nextEmail();
      const sent = await readJSON<{ dev_code: string }>(
        post(server, "/api/auth/magic/send", { email }),
      );
      const inbox = await readJSON<{ messages: Record<string, unknown>[] }>(
        request(server, "GET", "/api/__dev__/inbox"),
      );
      expect(inbox.status).toBe(200);
      expect(inbox.body.messages[0]).toEqual({
        channel: "email",
        to: email,
        from: expect.any(String),
        subject: "Your sign-in code",
        body: expect.stringContaining(sent.body.dev_code),
        sent_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
      });
    });
  });

  describe("restarts", () => {
    // On SQLite that takes SVC_SESSION_DB (a file); on Postgres the auth tables live in DATABASE_URL.
    it("keeps a session valid across a restart when the session store is durable", async () => {
      await using db = await createTestDatabase(database);
      using dir = tempDir();
      const env = {
        ...DEV,
        ...databaseEnv(db.target, { sessionsFile: join(dir.path, "sessions.db") }),
      };
      let signedIn: SignInBody;
      {
        await using first = await startAuthServer(env);
        signedIn = await signInWithMagicCode(first, nextEmail());
      }
      await using second = await startAuthServer(env);
      const me = await readJSON<MeBody>(
        request(second, "GET", "/api/auth/me", { token: signedIn.token }),
      );
      expect(me.status).toBe(200);
      expect(me.body.user_id).toBe(signedIn.user_id);
    });
  });

  describe("webhook email transport", () => {
    let stub: HttpStub;
    let production: AuthTestServer;
    let disposeProductionDatabase: (() => Promise<void>) | undefined;

    beforeAll(async () => {
      stub = await startHttpStub();
      const db = await createTestDatabase(database);
      disposeProductionDatabase = () => db[Symbol.asyncDispose]();
      // Outside dev mode: no SVC_DEV_MODE, the admin token set by the fixture.
      production = await startAuthServer({
        SVC_RATE_LIMIT: "off",
        SVC_EMAIL_PROVIDER: "webhook",
        SVC_EMAIL_ENDPOINT: `${stub.url}/send`,
        SVC_EMAIL_FROM: "auth@example.com",
        ...databaseEnv(db.target),
      });
    });
    afterAll(async () => {
      await production?.[Symbol.asyncDispose]();
      await disposeProductionDatabase?.();
      await stub?.[Symbol.asyncDispose]();
    });

    it("POSTs {to, from, subject, body} with the code, and answers without dev_code", async () => {
      stub.requests.length = 0;
      stub.respond = () => ({ status: 200, body: {} });
      const email = nextEmail();
      const sent = await readJSON(post(production, "/api/auth/magic/send", { email }));
      expect(sent).toMatchObject({ status: 200, body: { sent: true, email } });
      expect(Object.keys(sent.body).sort()).toEqual(["email", "sent"]);

      expect(stub.requests).toHaveLength(1);
      const [delivery] = stub.requests;
      expect(delivery?.method).toBe("POST");
      expect(delivery?.url).toBe("/send");
      expect(delivery?.headers["content-type"]).toMatch(/^application\/json/);
      const message = JSON.parse(delivery?.body ?? "{}") as Record<string, string>;
      expect(Object.keys(message).sort()).toEqual(["body", "from", "subject", "to"]);
      expect(message).toMatchObject({
        to: email,
        from: "auth@example.com",
        subject: "Your sign-in code",
      });
      const code = /\b(\d{6})\b/.exec(message.body ?? "")?.[1];
      expect(code).toBeDefined();

      const response = await post(production, "/api/auth/magic/verify", { email, code });
      expect(response.status).toBe(200);
      // Outside dev mode the cookie is Secure by default.
      expect(sessionSetCookie(response)).toMatch(/; Secure/);
    });

    it("answers 500 EMAIL_SEND_FAILED when the endpoint fails, without spending the cooldown", async () => {
      stub.requests.length = 0;
      stub.respond = () => ({ status: 500, body: { error: "mailer down" } });
      const email = nextEmail();
      const failed = await errorOf(post(production, "/api/auth/magic/send", { email }));
      expect(failed).toMatchObject({ status: 500, code: "EMAIL_SEND_FAILED" });
      expect(failed.message).not.toContain("mailer down");

      stub.respond = () => ({ status: 200, body: {} });
      const retried = await readJSON(post(production, "/api/auth/magic/send", { email }));
      expect(retried).toMatchObject({ status: 200, body: { sent: true, email } });
      expect(stub.requests).toHaveLength(2);
    });

    it("has no dev inbox outside dev mode", async () => {
      const error = await errorOf(request(production, "GET", "/api/__dev__/inbox"));
      expect(error).toMatchObject({ status: 404, code: "ROUTE_NOT_FOUND" });
    });
  });
});

describe("in-memory state on SQLite", () => {
  it("ends sessions with the process when SVC_SESSION_DB is unset", async () => {
    using dir = tempDir();
    const env = { ...DEV, SVC_DB_PATH: join(dir.path, "app.db") };
    let signedIn: SignInBody;
    {
      await using first = await startAuthServer(env);
      signedIn = await signInWithMagicCode(first, "restart@example.com");
    }
    await using second = await startAuthServer(env);
    const error = await errorOf(request(second, "GET", "/api/auth/me", { token: signedIn.token }));
    expect(error).toMatchObject({ status: 401, code: "INVALID_TOKEN" });
  });

  it("empties sessions and codes on POST /api/__test__/reset", async () => {
    await using server = await startAuthServer({ ...DEV, SVC_DB_PATH: ":memory:" });
    const email = "reset@example.com";
    const signedIn = await signInWithMagicCode(server, email);
    const guest = await readJSON<{ token: string }>(post(server, "/api/auth/guest"));
    // The cooldown of the code just sent would refuse another send for a minute.
    expect((await post(server, "/api/auth/magic/send", { email })).status).toBe(429);

    const reset = await readJSON(post(server, "/api/__test__/reset"));
    expect(reset).toMatchObject({ status: 200, body: { reset: true } });

    for (const token of [signedIn.token, guest.body.token]) {
      const error = await errorOf(request(server, "GET", "/api/auth/me", { token }));
      expect(error).toMatchObject({ status: 401, code: "INVALID_TOKEN" });
    }
    expect((await post(server, "/api/auth/magic/send", { email })).status).toBe(200);
    const users = await adminRequest(server, "GET", "/api/entities/User");
    expect(await users.json()).toEqual([]);
  });
});

describe("dev mode with an email provider", () => {
  it("still answers dev_code to loopback callers but has no dev inbox", async () => {
    await using stub = await startHttpStub();
    await using server = await startAuthServer({
      ...DEV,
      SVC_DB_PATH: ":memory:",
      SVC_EMAIL_PROVIDER: "webhook",
      SVC_EMAIL_ENDPOINT: stub.url,
      SVC_EMAIL_FROM: "auth@example.com",
    });
    const sent = await readJSON<{ dev_code: string }>(
      post(server, "/api/auth/magic/send", { email: "both@example.com" }),
    );
    expect(sent.body.dev_code).toMatch(/^\d{6}$/);
    expect(stub.requests[0]?.body).toContain(sent.body.dev_code);
    const error = await errorOf(request(server, "GET", "/api/__dev__/inbox"));
    expect(error).toMatchObject({ status: 404, code: "ROUTE_NOT_FOUND" });
  });
});
