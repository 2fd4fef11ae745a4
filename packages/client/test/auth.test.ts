import { describe, expect, it } from "vitest";
import { type AuthChange, isSecondFactorRequired, SvcError } from "../src/index.js";
import { clientOf, emailSequence, signedInClient, totpCode } from "./server.js";
import { serverForTests } from "./server-for-tests.js";

const server = serverForTests();
const nextEmail = emailSequence("auth");

describe("auth against the real server", () => {
  it("guest: stores the token and me() sees a guest", async () => {
    const client = clientOf(server());
    const changes: AuthChange[] = [];
    client.onAuthChange((change) => changes.push(change));
    const guest = await client.auth.guest();
    expect(guest.token).toMatch(/^svc_/);
    expect(await client.token()).toBe(guest.token);
    expect(changes).toEqual([{ reason: "sign-in", token: guest.token, userId: guest.user_id }]);
    const me = await client.auth.me();
    expect(me).toMatchObject({ user_id: guest.user_id, is_guest: true, user: null });
  });

  it("magic code: send answers dev_code, verify signs in and creates the user", async () => {
    const client = clientOf(server());
    const email = nextEmail();
    const sent = await client.auth.sendMagicCode(email);
    expect(sent).toMatchObject({ sent: true, email });
    expect(sent.dev_code).toMatch(/^\d{6}$/);
    const result = await client.auth.verifyMagicCode(email, sent.dev_code ?? "");
    expect(isSecondFactorRequired(result)).toBe(false);
    if (isSecondFactorRequired(result)) return;
    expect(result.expires_at).toBeGreaterThan(Date.now() / 1000);
    const me = await client.auth.me();
    expect(me.user?.email).toBe(email);
    expect(me.user?.emailVerified).toEqual(expect.any(String));
  });

  it("a wrong magic code is 401 INVALID_CODE and stores nothing", async () => {
    const client = clientOf(server());
    const email = nextEmail();
    await client.auth.sendMagicCode(email);
    const error = await client.auth.verifyMagicCode(email, "000000").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SvcError);
    expect(error).toMatchObject({ code: "INVALID_CODE", status: 401 });
    expect(await client.token()).toBeNull();
  });

  it("a second send within the cooldown is 429 RATE_LIMITED with retry_after_secs", async () => {
    const client = clientOf(server());
    const email = nextEmail();
    await client.auth.sendMagicCode(email);
    const error = await client.auth.sendMagicCode(email).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "RATE_LIMITED", status: 429 });
    expect((error as SvcError).retryAfterSecs).toEqual(expect.any(Number));
  });

  it("magic link: send answers dev_link", async () => {
    const client = clientOf(server());
    const sent = await client.auth.sendMagicLink(nextEmail(), "http://localhost:5173/done");
    expect(sent.sent).toBe(true);
    const link = new URL(sent.dev_link ?? "");
    expect(link.pathname).toBe("/api/auth/magic-link/verify");
    const email = link.searchParams.get("email") ?? "";
    const result = await client.auth.verifyMagicLink(email, link.searchParams.get("token") ?? "");
    expect("token" in result).toBe(true);
    expect((await client.auth.me()).user?.email).toBe(email);
  });

  it("password: register, log in from another client, then a wrong password", async () => {
    const email = nextEmail();
    const first = clientOf(server());
    const registered = await first.auth.register(email, "correct horse battery");
    expect(registered.token).toMatch(/^svc_/);
    const second = clientOf(server());
    const login = await second.auth.login(email, "correct horse battery");
    expect("token" in login && login.user_id).toBe(registered.user_id);
    await expect(second.auth.login(email, "wrong password!!")).rejects.toBeInstanceOf(SvcError);
  });

  it("password reset and change: the reset signs in and ends old sessions, change keeps this one", async () => {
    const email = nextEmail();
    const old = clientOf(server());
    await old.auth.register(email, "correct horse battery");
    const client = clientOf(server());
    const sent = await client.auth.sendPasswordReset(email);
    expect(sent).toMatchObject({ sent: true, email, dev_code: expect.stringMatching(/^\d{6}$/) });
    const unknown = await client.auth.sendPasswordReset(nextEmail());
    expect(unknown).not.toHaveProperty("dev_code");
    const reset = await client.auth.resetPassword(
      email,
      sent.dev_code ?? "",
      "a brand new passphrase",
    );
    expect(isSecondFactorRequired(reset)).toBe(false);
    expect(await client.token()).toBe("token" in reset ? reset.token : null);
    await expect(old.auth.me()).rejects.toMatchObject({ code: "INVALID_TOKEN", status: 401 });

    const other = clientOf(server());
    await other.auth.login(email, "a brand new passphrase");
    await expect(
      client.auth.changePassword("not the password", "yet another passphrase"),
    ).rejects.toMatchObject({ code: "INVALID_CREDENTIALS", status: 400 });
    expect(
      await client.auth.changePassword("a brand new passphrase", "yet another passphrase"),
    ).toEqual({ changed: true, revoked_sessions: 1 });
    expect((await client.auth.me()).user?.email).toBe(email);
    await expect(other.auth.me()).rejects.toMatchObject({ code: "INVALID_TOKEN", status: 401 });
    expect("token" in (await other.auth.login(email, "yet another passphrase"))).toBe(true);
  });

  it("email verification: send answers dev_code, verify stamps emailVerified", async () => {
    const client = clientOf(server());
    await client.auth.register(nextEmail(), "correct horse battery");
    expect((await client.auth.me()).user?.emailVerified ?? null).toBeNull();
    const sent = await client.auth.sendVerification();
    const verified = await client.auth.verifyEmail(sent.dev_code ?? "");
    expect(verified.verified).toBe(true);
    expect((await client.auth.me()).user?.emailVerified).toBe(verified.emailVerified);
  });

  it("sessions, sign-out and sign-out everywhere", async () => {
    const email = nextEmail();
    const a = clientOf(server());
    await a.auth.register(email, "correct horse battery");
    const b = clientOf(server());
    await b.auth.login(email, "correct horse battery");
    const c = clientOf(server());
    await c.auth.login(email, "correct horse battery");
    const sessions = await a.auth.sessions();
    expect(sessions).toHaveLength(3);
    expect(sessions.filter((session) => session.current)).toHaveLength(1);

    const changes: AuthChange[] = [];
    c.onAuthChange((change) => changes.push(change));
    const cToken = (await c.token()) ?? "";
    await c.auth.signOut();
    expect(await c.token()).toBeNull();
    expect(changes.map((change) => change.reason)).toEqual(["sign-out"]);
    const stale = clientOf(server(), { token: cToken });
    await expect(stale.auth.me()).rejects.toMatchObject({ code: "INVALID_TOKEN", status: 401 });

    expect(await a.auth.signOutEverywhere()).toEqual({ revoked: 2 });
    expect(await a.token()).toBeNull();
    await expect(b.auth.me()).rejects.toMatchObject({ code: "INVALID_TOKEN" });
  });

  it("a 401 INVALID_TOKEN clears the stored token and fires onAuthChange", async () => {
    const { client } = await signedInClient(server(), nextEmail());
    const token = (await client.token()) ?? "";
    const other = clientOf(server(), { token });
    await other.auth.signOut(); // revokes the session under the first client's feet
    const changes: AuthChange[] = [];
    client.onAuthChange((change) => changes.push(change));
    await expect(client.auth.me()).rejects.toMatchObject({ code: "INVALID_TOKEN", status: 401 });
    expect(await client.token()).toBeNull();
    expect(changes).toEqual([{ reason: "token-invalid", token: null, userId: null }]);
  });

  it("signOut with a session revoked elsewhere still resolves and clears the token", async () => {
    const { client } = await signedInClient(server(), nextEmail());
    await clientOf(server(), { token: (await client.token()) ?? "" }).auth.signOut();
    await expect(client.auth.signOut()).resolves.toBeUndefined();
    expect(await client.token()).toBeNull();
    await expect(clientOf(server()).auth.signOut()).resolves.toBeUndefined();
  });

  it("selectOrg(null) clears the organization and fires onAuthChange", async () => {
    const { client } = await signedInClient(server(), nextEmail());
    const changes: AuthChange[] = [];
    client.onAuthChange((change) => changes.push(change));
    expect(await client.auth.selectOrg(null)).toEqual({ org_id: null, roles: [] });
    expect(changes.map((change) => change.reason)).toEqual(["org-change"]);
  });

  it("TOTP: enrol, confirm, the challenged login, verifySecondFactor, disable", async () => {
    const email = nextEmail();
    const client = clientOf(server());
    await client.auth.register(email, "correct horse battery");
    const enrollment = await client.auth.totp.enroll();
    const enabled = await client.auth.totp.confirm(totpCode(enrollment.secret));
    expect(enabled.backup_codes.length).toBeGreaterThan(0);
    expect(await client.auth.totp.status()).toMatchObject({ enabled: true });

    const device = clientOf(server());
    const first = await device.auth.login(email, "correct horse battery");
    if (!isSecondFactorRequired(first)) throw new Error("expected the second factor");
    expect(first.methods).toContain("totp");
    expect(await device.token()).toBeNull();
    const session = await device.auth.verifySecondFactor(
      first.challenge,
      enabled.backup_codes[0] ?? "",
      {
        backupCode: true,
      },
    );
    expect(await device.token()).toBe(session.token);
    expect((await device.auth.me()).user?.email).toBe(email);

    await client.auth.totp.disable(enabled.backup_codes[1] ?? "", { backupCode: true });
    expect(await client.auth.totp.status()).toMatchObject({ enabled: false });
  });

  it("providers() lists none when no provider is configured", async () => {
    expect(await clientOf(server()).auth.providers()).toEqual([]);
  });

  it("deleteAccount removes the user and clears the token", async () => {
    const { client } = await signedInClient(server(), nextEmail());
    const deleted = await client.auth.deleteAccount();
    expect(deleted).toMatchObject({ deleted: true, revoked_sessions: 1 });
    expect(await client.token()).toBeNull();
  });
});
