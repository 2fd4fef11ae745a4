import { type AuthContext, adminAuth, anonymousAuth, createAuthContext } from "@svc/schema";
import { describe, expect, it } from "vitest";
import { type ClientInfo, CODE_TTL_MS, MAX_ATTEMPTS, SEND_COOLDOWN_MS } from "../src/index.js";
import {
  type AuthFixture,
  databases,
  expectAuthError,
  expectRateLimited,
  otherCode,
  sessionOf,
  totpCodeAt,
  useAuthFixture,
} from "./fixture.js";

// Password reset (send a code, spend it with a new password) and password
// change (current password, new password), on every database.

const EMAIL = "ada@example.com";
const OLD = "the old long password";
const NEW = "the new long password";
const CLIENT = { ip: "203.0.113.7", userAgent: "test/1.0" };
const noDevCode = { exposeDevCode: false };

async function contextOf(f: AuthFixture, token: string): Promise<AuthContext> {
  const context = await f.auth.resolveSession(token);
  if (context === null) throw new Error("the session did not resolve");
  return context;
}

async function events(f: AuthFixture, userId: string, kind: string) {
  return (await f.auth.listAudit(adminAuth, { user_id: userId, kind })).events;
}

async function storedHash(f: AuthFixture, userId: string): Promise<string | undefined> {
  const row = await f.accountTables
    .selectFrom("svc_passwords")
    .select("hash")
    .where("user_id", "=", userId)
    .executeTakeFirst();
  return row?.hash;
}

async function resetCodeRow(f: AuthFixture, email = EMAIL) {
  const row = await f.tables
    .selectFrom("svc_codes")
    .selectAll()
    .where("purpose", "=", "reset")
    .where("subject", "=", email)
    .executeTakeFirst();
  return row === undefined
    ? undefined
    : { attempts: Number(row.attempts), consumed: row.consumed_at !== null };
}

/** Everything a failed request must leave as it was. */
async function snapshot(f: AuthFixture, userId: string) {
  return {
    hash: await storedHash(f, userId),
    user: await f.store.systemReader().get("User", userId),
    sessions: (await f.tables.selectFrom("svc_sessions").select("id").execute()).length,
    audit: (await f.auth.listAudit(adminAuth, { user_id: userId })).events.length,
  };
}

/** The old password is refused (when `oldFrom` tries it) and the new one signs in. */
async function expectOnlyNewPasswordWorks(f: AuthFixture, oldFrom: ClientInfo = CLIENT) {
  await expectAuthError(
    f.auth.loginPassword({ email: EMAIL, password: OLD }, oldFrom),
    "INVALID_CREDENTIALS",
  );
  sessionOf(await f.auth.loginPassword({ email: EMAIL, password: NEW }, CLIENT));
}

/** Sends a reset code to `email` and returns it (read from the inbox). */
async function resetCode(f: AuthFixture, email = EMAIL): Promise<string> {
  await f.auth.sendPasswordReset({ email }, noDevCode);
  return f.lastCode(email);
}

describe.each(databases)("password reset on $name", (database) => {
  const fixture = useAuthFixture(database);

  it("emails a code to a password account and answers {sent, email}", async () => {
    const f = fixture();
    await f.registerVerified(EMAIL, OLD);
    const sent = await f.auth.sendPasswordReset({ email: " Ada@Example.com " }, noDevCode);
    expect(sent).toEqual({ sent: true, email: EMAIL });
    const [message] = f.inbox.messages();
    expect(message).toMatchObject({ to: EMAIL, subject: "Reset your password" });
    expect(message?.body.split("\n")[0]).toMatch(/^Your password reset code is \d{6}$/);
  });

  it("answers an unknown address and a real account exactly alike, emailing only the account", async () => {
    const f = fixture();
    await f.registerVerified(EMAIL, OLD);
    await f.signIn("magic@example.com");
    const before = f.inbox.messages().length;
    const known = await f.auth.sendPasswordReset({ email: EMAIL }, noDevCode);
    const unknown = await f.auth.sendPasswordReset({ email: "nobody@example.com" }, noDevCode);
    const noPassword = await f.auth.sendPasswordReset({ email: "magic@example.com" }, noDevCode);
    expect(unknown).toEqual({ ...known, email: "nobody@example.com" });
    expect(noPassword).toEqual({ ...known, email: "magic@example.com" });
    const fresh = f.inbox.messages().slice(0, f.inbox.messages().length - before);
    // An account without a password gets a code too: that is how it sets a first one.
    expect(fresh.map((message) => message.to).sort()).toEqual([EMAIL, "magic@example.com"]);
  });

  it("takes the cooldown for every address, so a resend's 429 tells nothing either", async () => {
    const f = fixture();
    await f.registerVerified(EMAIL, OLD);
    for (const email of [EMAIL, "nobody@example.com"]) {
      await f.auth.sendPasswordReset({ email }, noDevCode);
      f.clock.advance(10_000);
      expect(await expectRateLimited(f.auth.sendPasswordReset({ email }, noDevCode))).toBe(
        (SEND_COOLDOWN_MS - 10_000) / 1000,
      );
      f.clock.advance(-10_000);
    }
    f.clock.advance(SEND_COOLDOWN_MS);
    await f.auth.sendPasswordReset({ email: "nobody@example.com" }, noDevCode);
  });

  it("adds dev_code in dev mode only when a code was really emailed", async () => {
    const f = fixture();
    await f.registerVerified(EMAIL, OLD);
    const dev = f.createAuth({ devMode: true });
    const sent = await dev.sendPasswordReset({ email: EMAIL }, { exposeDevCode: true });
    expect(sent.dev_code).toBe(f.lastCode(EMAIL));
    expect(
      await dev.sendPasswordReset({ email: "nobody@example.com" }, { exposeDevCode: true }),
    ).toEqual({ sent: true, email: "nobody@example.com" });
    f.clock.advance(SEND_COOLDOWN_MS);
    expect(await dev.sendPasswordReset({ email: EMAIL }, noDevCode)).not.toHaveProperty("dev_code");
    f.clock.advance(SEND_COOLDOWN_MS);
    expect(
      await f.auth.sendPasswordReset({ email: EMAIL }, { exposeDevCode: true }),
    ).not.toHaveProperty("dev_code");
  });

  it("without any email transport fails for every address alike", async () => {
    const f = fixture();
    await f.registerVerified(EMAIL, OLD);
    const auth = f.createAuth({
      email: { transport: undefined, from: undefined, devInbox: undefined },
    });
    for (const email of [EMAIL, "nobody@example.com"]) {
      await expectAuthError(auth.sendPasswordReset({ email }, noDevCode), "EMAIL_SEND_FAILED");
      expect(await resetCodeRow(f, email)).toBeUndefined();
    }
  });

  it("a refused email restores the cooldown, so a retry works at once", async () => {
    const f = fixture();
    await f.registerVerified(EMAIL, OLD);
    f.mailer.failWith = new Error("provider down");
    await expectAuthError(
      f.auth.sendPasswordReset({ email: EMAIL }, noDevCode),
      "EMAIL_SEND_FAILED",
    );
    expect(await resetCodeRow(f)).toBeUndefined();
    f.mailer.failWith = undefined;
    await f.auth.sendPasswordReset({ email: EMAIL }, noDevCode);
  });

  it("sets the new password, revokes every session, keeps API keys and signs in", async () => {
    const f = fixture();
    const first = await f.registerVerified(EMAIL, OLD);
    const second = sessionOf(await f.auth.loginPassword({ email: EMAIL, password: OLD }, CLIENT));
    const key = await f.auth.createApiKey(first.context, { name: "ci" });
    const verifiedAt = (await f.store.systemReader().get("User", first.userId))?.emailVerified;
    await f.auth.resolveSession(second.token); // cached on SQLite
    f.clock.advance(1000);

    const code = await resetCode(f);
    const signedIn = sessionOf(
      await f.auth.resetPassword({ email: EMAIL, code, password: NEW }, CLIENT),
    );
    expect(signedIn.user_id).toBe(first.userId);
    expect(signedIn.token).toMatch(/^svc_/);

    expect(await f.auth.resolveSession(first.token)).toBeNull();
    expect(await f.auth.resolveSession(second.token)).toBeNull();
    const context = await contextOf(f, signedIn.token);
    expect(context).toMatchObject({ userId: first.userId, via: "session" });
    expect((await f.auth.listSessions(context)).length).toBe(1);
    expect(await f.auth.resolveApiKey(key.key)).toMatchObject({ userId: first.userId });
    expect((await f.store.systemReader().get("User", first.userId))?.emailVerified).toBe(
      verifiedAt,
    );

    await expectOnlyNewPasswordWorks(f);
    expect(await events(f, first.userId, "PasswordReset")).toEqual([
      expect.objectContaining({
        at: new Date(f.clock.now()).toISOString(),
        data: { sessions: 2, claimed: false, first_password: false },
        ip: CLIENT.ip,
      }),
    ]);
    expect(await events(f, first.userId, "AccountClaim")).toEqual([]);
    const signIns = await events(f, first.userId, "SignIn");
    expect(signIns.map((event) => event.data.method)).toContain("password-reset");
  });

  it("on an unverified account proves the address: the registrant's credentials go, the address is verified", async () => {
    const f = fixture();
    const attacker = { ip: "198.51.100.66" };
    const registered = await f.auth.registerPassword({ email: EMAIL, password: OLD }, attacker);
    const context = await contextOf(f, registered.token);
    const key = await f.auth.createApiKey(context, { name: "backdoor" });
    expect(await f.auth.resolveApiKey(key.key)).not.toBeNull();
    f.clock.advance(1000);

    const code = await resetCode(f);
    const owner = sessionOf(
      await f.auth.resetPassword({ email: EMAIL, code, password: NEW }, CLIENT),
    );
    expect(owner.user_id).toBe(registered.user_id);
    expect(await f.store.systemReader().get("User", owner.user_id)).toMatchObject({
      emailVerified: f.clock.iso(),
    });
    expect(await f.auth.resolveSession(registered.token)).toBeNull();
    await expectAuthError(f.auth.resolveApiKey(key.key), "INVALID_API_KEY");
    await expectOnlyNewPasswordWorks(f, attacker);
    expect(await events(f, owner.user_id, "AccountClaim")).toEqual([
      expect.objectContaining({
        data: {
          method: "password-reset",
          password: true,
          sessions: 1,
          api_keys: 1,
          totp: false,
          trusted_devices: 0,
          phone: false,
        },
      }),
    ]);
    expect(await events(f, owner.user_id, "PasswordReset")).toEqual([
      expect.objectContaining({ data: { sessions: 1, claimed: true, first_password: false } }),
    ]);
  });

  it("a user with TOTP on gets the second-factor challenge, like a login", async () => {
    const f = fixture();
    const user = await f.registerVerified(EMAIL, OLD);
    const { secret } = await f.auth.totp.enroll(user.context);
    await f.auth.totp.confirm(user.context, { code: totpCodeAt(secret, f.clock.now()) });
    const code = await resetCode(f);
    const result = await f.auth.resetPassword({ email: EMAIL, code, password: NEW }, CLIENT);
    expect(result).toMatchObject({
      second_factor_required: true,
      methods: ["totp", "backup_code"],
    });
    // The password changed and the sessions went all the same.
    expect(await f.auth.resolveSession(user.token)).toBeNull();
    expect(await events(f, user.userId, "PasswordReset")).toHaveLength(1);
  });

  it.each([
    { what: "a wrong code", code: (right: string) => otherCode(right), advance: 0 },
    { what: "an expired code", code: (right: string) => right, advance: CODE_TTL_MS },
  ])("$what is 401 INVALID_CODE and writes nothing", async ({ code, advance }) => {
    const f = fixture();
    const user = await f.registerVerified(EMAIL, OLD);
    const right = await resetCode(f);
    f.clock.advance(advance);
    const before = await snapshot(f, user.userId);
    await expectAuthError(
      f.auth.resetPassword({ email: EMAIL, code: code(right), password: NEW }, CLIENT),
      "INVALID_CODE",
      401,
    );
    expect(await snapshot(f, user.userId)).toEqual(before);
    expect(await f.auth.resolveSession(user.token)).not.toBeNull();
  });

  it("a used code is 401 INVALID_CODE the second time", async () => {
    const f = fixture();
    await f.registerVerified(EMAIL, OLD);
    const code = await resetCode(f);
    await f.auth.resetPassword({ email: EMAIL, code, password: NEW }, CLIENT);
    await expectAuthError(
      f.auth.resetPassword({ email: EMAIL, code, password: OLD }, CLIENT),
      "INVALID_CODE",
    );
    sessionOf(await f.auth.loginPassword({ email: EMAIL, password: NEW }, CLIENT));
  });

  it("five wrong codes burn it: even the right one is then 429", async () => {
    const f = fixture();
    const user = await f.registerVerified(EMAIL, OLD);
    const code = await resetCode(f);
    for (let i = 0; i < MAX_ATTEMPTS; i++) {
      await expectAuthError(
        f.auth.resetPassword({ email: EMAIL, code: otherCode(code), password: NEW }, CLIENT),
        "INVALID_CODE",
      );
    }
    const before = await snapshot(f, user.userId);
    await expectRateLimited(f.auth.resetPassword({ email: EMAIL, code, password: NEW }, CLIENT));
    expect(await snapshot(f, user.userId)).toEqual(before);
  });

  it("an unknown address is INVALID_CODE, like a wrong code", async () => {
    const f = fixture();
    await f.auth.sendPasswordReset({ email: "nobody@example.com" }, noDevCode);
    await expectAuthError(
      f.auth.resetPassword({ email: "nobody@example.com", code: "123456", password: NEW }, CLIENT),
      "INVALID_CODE",
    );
  });

  it("gives an account made by magic code its first password, ending its sessions", async () => {
    const f = fixture();
    const magic = "magic@example.com";
    const signedIn = await f.signIn(magic);
    const userId = (await contextOf(f, signedIn.token)).userId ?? "";
    expect(await storedHash(f, userId)).toBeUndefined();
    const code = await resetCode(f, magic);
    const fresh = sessionOf(
      await f.auth.resetPassword({ email: magic, code, password: NEW }, CLIENT),
    );
    expect(await storedHash(f, userId)).toBeDefined();
    expect(await f.auth.resolveSession(signedIn.token)).toBeNull();
    expect((await contextOf(f, fresh.token)).userId).toBe(userId);
    sessionOf(await f.auth.loginPassword({ email: magic, password: NEW }, CLIENT));
    const [event] = await events(f, userId, "PasswordReset");
    expect(event?.data).toMatchObject({ claimed: false, first_password: true });
  });

  it.each([
    { password: undefined, code: "MISSING_PASSWORD" as const },
    { password: "short", code: "INVALID_PASSWORD" as const },
    { password: "x".repeat(257), code: "INVALID_PASSWORD" as const },
    { password: 1234567890123, code: "INVALID_PASSWORD" as const },
  ])("a new password $password is $code and spends no attempt", async ({ password, code }) => {
    const f = fixture();
    const user = await f.registerVerified(EMAIL, OLD);
    const right = await resetCode(f);
    const before = await snapshot(f, user.userId);
    await expectAuthError(
      f.auth.resetPassword({ email: EMAIL, code: right, password }, CLIENT),
      code,
    );
    expect(await snapshot(f, user.userId)).toEqual(before);
    expect(await resetCodeRow(f)).toEqual({ attempts: 0, consumed: false });
    sessionOf(await f.auth.resetPassword({ email: EMAIL, code: right, password: NEW }, CLIENT));
  });

  it.each([
    { body: { code: "123456", password: NEW }, code: "MISSING_EMAIL" as const },
    { body: { email: 42, code: "123456", password: NEW }, code: "INVALID_EMAIL" as const },
    { body: { email: EMAIL, password: NEW }, code: "MISSING_CODE" as const },
    { body: { email: EMAIL, code: { x: 1 }, password: NEW }, code: "INVALID_CODE" as const },
  ])("a body without a usable field is $code", async ({ body, code }) => {
    const f = fixture();
    await expectAuthError(f.auth.resetPassword(body, CLIENT), code);
  });
});

describe.each(databases)("password change on $name", (database) => {
  const fixture = useAuthFixture(database, {
    auth: { jwt: { secret: "j".repeat(40), issuer: "svc" } },
  });

  it("sets the new password, keeps this session and revokes the others", async () => {
    const f = fixture();
    const here = await f.registerVerified(EMAIL, OLD);
    const other = sessionOf(await f.auth.loginPassword({ email: EMAIL, password: OLD }, CLIENT));
    const key = await f.auth.createApiKey(here.context, { name: "ci" });
    await f.auth.resolveSession(other.token); // cached on SQLite
    const changed = await f.auth.changePassword(
      here.context,
      { currentPassword: OLD, newPassword: NEW },
      CLIENT.ip,
    );
    expect(changed).toEqual({ changed: true, revoked_sessions: 1 });
    expect(await f.auth.resolveSession(here.token)).not.toBeNull();
    expect(await f.auth.resolveSession(other.token)).toBeNull();
    expect(await f.auth.resolveApiKey(key.key)).not.toBeNull();
    await expectOnlyNewPasswordWorks(f);
    expect(await events(f, here.userId, "PasswordChange")).toEqual([
      expect.objectContaining({
        data: { sessions: 1, session_id: here.context.sessionId },
        ip: CLIENT.ip,
      }),
    ]);
  });

  it.each([
    {
      what: "a wrong current password",
      body: { currentPassword: "not the password!", newPassword: NEW },
      code: "INVALID_CREDENTIALS" as const,
      status: 400,
    },
    {
      what: "a current password that is not a string",
      body: { currentPassword: 42, newPassword: NEW },
      code: "INVALID_CREDENTIALS" as const,
      status: 400,
    },
    {
      what: "no current password",
      body: { newPassword: NEW },
      code: "MISSING_PASSWORD" as const,
      status: 400,
    },
    {
      what: "no new password",
      body: { currentPassword: OLD },
      code: "MISSING_PASSWORD" as const,
      status: 400,
    },
    {
      what: "a weak new password",
      body: { currentPassword: OLD, newPassword: "short" },
      code: "INVALID_PASSWORD" as const,
      status: 400,
    },
  ])("$what is $status $code and writes nothing", async ({ body, code, status }) => {
    const f = fixture();
    const here = await f.registerVerified(EMAIL, OLD);
    const other = sessionOf(await f.auth.loginPassword({ email: EMAIL, password: OLD }, CLIENT));
    const before = await snapshot(f, here.userId);
    await expectAuthError(f.auth.changePassword(here.context, body), code, status);
    expect(await snapshot(f, here.userId)).toEqual(before);
    expect(await f.auth.resolveSession(other.token)).not.toBeNull();
  });

  it("an account without a password is 400 PASSWORD_NOT_SET", async () => {
    const f = fixture();
    const { context, userId } = await f.signIn("magic@example.com");
    await expectAuthError(
      f.auth.changePassword(context, { currentPassword: OLD, newPassword: NEW }),
      "PASSWORD_NOT_SET",
      400,
    );
    expect(await storedHash(f, userId)).toBeUndefined();
  });

  it("refuses every caller but a real session, and a revoked one", async () => {
    const f = fixture();
    const here = await f.registerVerified(EMAIL, OLD);
    const { key } = await f.auth.createApiKey(here.context, { name: "k" });
    const keyContext = await f.auth.resolveApiKey(key);
    const guest = await contextOf(f, (await f.auth.createGuest({})).token);
    const body = { currentPassword: OLD, newPassword: NEW };
    await expectAuthError(
      f.auth.changePassword(keyContext ?? anonymousAuth, body),
      "API_KEY_AUTH_FORBIDDEN",
    );
    await expectAuthError(f.auth.changePassword(guest, body), "GUEST_NOT_ALLOWED");
    await expectAuthError(
      f.auth.changePassword(createAuthContext({ userId: here.userId, via: "jwt" }), body),
      "SESSION_REQUIRED",
    );
    await expectAuthError(f.auth.changePassword(anonymousAuth, body), "AUTH_REQUIRED");
    await f.auth.revokeSession(here.context);
    await expectAuthError(f.auth.changePassword(here.context, body), "INVALID_TOKEN");
    sessionOf(await f.auth.loginPassword({ email: EMAIL, password: OLD }, CLIENT));
    expect(await events(f, here.userId, "PasswordChange")).toEqual([]);
  });
});
