import { decodeBase32IgnorePadding } from "@oslojs/encoding";
import { type AuthContext, adminAuth, anonymousAuth } from "@svc/schema";
import type { Kysely } from "kysely";
import { afterEach, describe, expect, it, vi } from "vitest";
import { authTables } from "../src/auth-database.js";
import { authErrorCodes, MAX_ATTEMPTS } from "../src/index.js";
import { insertSession } from "../src/session-store.js";
import { CHALLENGE_TTL_MS } from "../src/totp/challenges.js";
import { createTotp, type Totp } from "../src/totp/create-totp.js";
import { WRONG_CODE_WINDOW_MS } from "../src/totp/enrollment.js";
import type { SecondFactorSignIn, VerifyChallengeBody } from "../src/totp/second-factor.js";
import type { TotpErrorCode } from "../src/totp/totp-errors.js";
import { type TotpTables, totpMigrations } from "../src/totp/totp-tables.js";
import { TRUSTED_DEVICE_TTL_MS } from "../src/totp/trusted-devices.js";
import {
  type AuthFixture,
  databases,
  expectAuthError,
  expectRateLimited,
  SECRET,
  type SignedIn,
  sha256Hex,
  totpCodeAt,
  useAuthFixture,
} from "./fixture.js";

// TOTP on every database, driven through the framework-free API with the
// fixture's clock. The sign-in gate is exercised as auth-core will call it:
// `gate.challenge(userId, client)` after a first factor, then `verifyChallenge`.
//
// enrolment: none --enroll--> pending --confirm(right code)--> enabled
//            pending --5 wrong confirms--> burned (429 until enroll again)
//            enabled --disable(code or backup code)--> none (devices, codes gone)
// challenge: issued --right factor--> used (single use) | --5 wrong--> burned (429)
//            issued --10 minutes--> expired (INVALID_CHALLENGE)

const ISSUER = "auth-test";
const BASE32 = /^[A-Z2-7]{32}$/;
const BACKUP = /^[23456789abcdefghjkmnpqrstuvwxyz]{5}-[23456789abcdefghjkmnpqrstuvwxyz]{5}$/;
const DEVICE = { ip: "203.0.113.7", userAgent: "TestBrowser/1.0" };

afterEach(() => {
  vi.useRealTimers();
});

/** A 6-digit code that is none of the window's codes. */
function wrongCodeAt(secret: string, ms: number): string {
  const valid = new Set([-30_000, 0, 30_000].map((offset) => totpCodeAt(secret, ms + offset)));
  let candidate = 0;
  while (valid.has(String(candidate).padStart(6, "0"))) candidate++;
  return String(candidate).padStart(6, "0");
}

async function expectTotpError(promise: Promise<unknown>, code: TotpErrorCode): Promise<void> {
  await expectAuthError(promise, code, authErrorCodes[code].status);
}

/** TOTP's tables, in the application database. */
function totpTables(f: AuthFixture): Kysely<TotpTables> {
  return f.accountTables as unknown as Kysely<TotpTables>;
}

async function openTotp(f: AuthFixture): Promise<Totp> {
  await f.store.migrate({ packages: [totpMigrations()] });
  return createTotp({
    database: f.database,
    secret: SECRET,
    now: f.clock.now,
    issuer: ISSUER,
    async createSession(userId, client, db) {
      // Inside verify's transaction: on SQLite a write outside it would wait forever.
      const tables = db === undefined ? f.tables : authTables(f.database, db);
      const { token, session } = await insertSession(tables, {
        userId,
        isGuest: false,
        now: f.clock.now(),
        lifetimeMs: f.auth.sessionLifetimeSecs * 1000,
        client,
      });
      return { token, user_id: userId, expires_at: Math.floor(session.expiresAt / 1000) };
    },
    async emailOf(userId) {
      const user = await f.store.transaction(adminAuth, (tx) => tx.get("User", userId));
      return typeof user?.email === "string" ? user.email : null;
    },
  });
}

interface Enabled {
  readonly user: SignedIn;
  /** Base32, as the authenticator app got it. */
  readonly secret: string;
  readonly backupCodes: readonly string[];
}

/** Signs `email` in, enrols and confirms TOTP, then moves the clock to the next step. */
async function enable(f: AuthFixture, totp: Totp, email: string): Promise<Enabled> {
  const user = await f.signIn(email);
  const { secret } = await totp.enroll(user.context);
  const confirmed = await totp.confirm(user.context, { code: totpCodeAt(secret, f.clock.now()) });
  f.clock.advance(30_000);
  return { user, secret, backupCodes: confirmed.backup_codes };
}

/** The challenge a sign-in from `client` gets (fails when the gate lets it through). */
async function challengeFor(
  totp: Totp,
  userId: string,
  client: { trustedDevice?: string } = {},
): Promise<string> {
  const required = await totp.gate.challenge(userId, { ...DEVICE, ...client });
  if (required === null) throw new Error("expected a second-factor challenge");
  return required.challenge;
}

/** Starts a sign-in for `userId` and answers its challenge with `factor`. */
async function signInWith(
  totp: Totp,
  userId: string,
  factor: Omit<VerifyChallengeBody, "challenge">,
): Promise<SecondFactorSignIn> {
  return totp.verifyChallenge({ challenge: await challengeFor(totp, userId), ...factor }, DEVICE);
}

/** Answers `challenge` with the code the authenticator app shows at the fixture's clock. */
function answerNow(
  f: AuthFixture,
  totp: Totp,
  { challenge, secret }: { challenge: unknown; secret: string },
): Promise<SecondFactorSignIn> {
  return totp.verifyChallenge({ challenge, code: totpCodeAt(secret, f.clock.now()) }, DEVICE);
}

/** TOTP opened and a@example.com signed in, not enrolled. */
async function openSignedIn(f: AuthFixture) {
  const totp = await openTotp(f);
  return { totp, user: await f.signIn("a@example.com") };
}

/** TOTP opened and on for a@example.com. */
async function openEnabled(f: AuthFixture) {
  const totp = await openTotp(f);
  return { totp, ...(await enable(f, totp, "a@example.com")) };
}

/** TOTP on for a@example.com and a sign-in waiting on its challenge, where most tests start. */
async function challenged(f: AuthFixture) {
  const enabled = await openEnabled(f);
  return { ...enabled, challenge: await challengeFor(enabled.totp, enabled.user.userId) };
}

async function expectSession(f: AuthFixture, signIn: SecondFactorSignIn, userId: string) {
  expect(signIn.user_id).toBe(userId);
  const context = await f.auth.resolveSession(signIn.token);
  expect(context).toMatchObject({ userId, via: "session", isGuest: false });
  return context as AuthContext;
}

async function auditKinds(f: AuthFixture, userId: string): Promise<string[]> {
  const rows = await f.accountTables
    .selectFrom("svc_audit")
    .select("kind")
    .where("user_id", "=", userId)
    .orderBy("at")
    .execute();
  return rows.map((row) => row.kind);
}

describe.each(databases)("TOTP on $name", (database) => {
  const fixture = useAuthFixture(database);

  describe("enrolment", () => {
    it("enroll -> confirm turns TOTP on and answers 10 backup codes once", async () => {
      const f = fixture();
      const { totp, user } = await openSignedIn(f);
      expect(await totp.status(user.context)).toEqual({ enabled: false, backup_codes_left: 0 });

      const enrolment = await totp.enroll(user.context);
      expect(enrolment.secret).toMatch(BASE32);
      const uri = new URL(enrolment.uri);
      expect(`${uri.protocol}//${uri.host}${decodeURIComponent(uri.pathname)}`).toBe(
        `otpauth://totp/${ISSUER}:a@example.com`,
      );
      expect(Object.fromEntries(uri.searchParams)).toEqual({
        secret: enrolment.secret,
        issuer: ISSUER,
        algorithm: "SHA1",
        digits: "6",
        period: "30",
      });
      // Pending: the gate does not ask for it yet.
      expect(await totp.gate.challenge(user.userId, DEVICE)).toBeNull();
      expect((await totp.status(user.context)).enabled).toBe(false);

      const confirmed = await totp.confirm(user.context, {
        code: totpCodeAt(enrolment.secret, f.clock.now()),
      });
      expect(confirmed.enabled).toBe(true);
      expect(confirmed.backup_codes).toHaveLength(10);
      for (const code of confirmed.backup_codes) expect(code).toMatch(BACKUP);
      expect(new Set(confirmed.backup_codes).size).toBe(10);
      expect(await totp.status(user.context)).toEqual({ enabled: true, backup_codes_left: 10 });
      expect(await auditKinds(f, user.userId)).toContain("TotpEnable");
    });

    it("stores the secret encrypted and the backup codes as HMACs only", async () => {
      const f = fixture();
      const { user, secret, backupCodes } = await openEnabled(f);
      const row = await totpTables(f)
        .selectFrom("svc_totp")
        .selectAll()
        .where("user_id", "=", user.userId)
        .executeTakeFirstOrThrow();
      const raw = Buffer.from(decodeBase32IgnorePadding(secret));
      expect(row.secret_enc).toMatch(/^[A-Za-z0-9_-]+$/);
      expect(row.secret_enc).not.toContain(secret);
      expect(Buffer.from(row.secret_enc, "base64url").includes(raw)).toBe(false);
      const stored = await totpTables(f)
        .selectFrom("svc_backup_codes")
        .select("code_hash")
        .where("user_id", "=", user.userId)
        .execute();
      expect(stored).toHaveLength(10);
      const hashes = stored.map((code) => code.code_hash).join(" ");
      for (const code of backupCodes) {
        expect(hashes).not.toContain(code.replace("-", ""));
        expect(hashes).not.toContain(sha256Hex(code));
      }
    });

    it("labels the account with the user id when there is no email", async () => {
      const f = fixture();
      const totp = await openTotp(f);
      // A session whose User row is gone: emailOf answers null.
      const orphan = await f.signIn("b@example.com");
      await f.store.transaction(adminAuth, (tx) => tx.delete("User", orphan.userId));
      const { uri } = await totp.enroll(orphan.context);
      expect(uri.startsWith(`otpauth://totp/${ISSUER}:${orphan.userId}?`)).toBe(true);
    });

    it("enroll again replaces the pending secret", async () => {
      const f = fixture();
      const { totp, user } = await openSignedIn(f);
      const first = await totp.enroll(user.context);
      const second = await totp.enroll(user.context);
      expect(second.secret).not.toBe(first.secret);
      const now = f.clock.now();
      if (totpCodeAt(first.secret, now) !== totpCodeAt(second.secret, now)) {
        await expectTotpError(
          totp.confirm(user.context, { code: totpCodeAt(first.secret, now) }),
          "INVALID_TOTP",
        );
      }
      expect(
        (await totp.confirm(user.context, { code: totpCodeAt(second.secret, now) })).enabled,
      ).toBe(true);
    });

    it("enroll while enabled is 409 TOTP_ALREADY_ENABLED, and so is confirm", async () => {
      const f = fixture();
      const { totp, user, secret } = await openEnabled(f);
      await expectTotpError(totp.enroll(user.context), "TOTP_ALREADY_ENABLED");
      await expectTotpError(
        totp.confirm(user.context, { code: totpCodeAt(secret, f.clock.now()) }),
        "TOTP_ALREADY_ENABLED",
      );
    });

    it("confirm without enroll is 400 TOTP_NOT_ENROLLED; without a code 400 MISSING_CODE", async () => {
      const f = fixture();
      const { totp, user } = await openSignedIn(f);
      await expectTotpError(totp.confirm(user.context, { code: "123456" }), "TOTP_NOT_ENROLLED");
      await totp.enroll(user.context);
      await expectAuthError(totp.confirm(user.context, {}), "MISSING_CODE");
      await expectAuthError(totp.confirm(user.context, { code: 123456 }), "MISSING_CODE");
    });

    it("confirm accepts one step of drift and checks the injected clock", async () => {
      const f = fixture();
      const { totp, user } = await openSignedIn(f);
      const { secret } = await totp.enroll(user.context);
      const now = f.clock.now();
      await expectTotpError(
        totp.confirm(user.context, { code: totpCodeAt(secret, now - 60_000) }),
        "INVALID_TOTP",
      );
      await expectTotpError(
        totp.confirm(user.context, { code: totpCodeAt(secret, now + 60_000) }),
        "INVALID_TOTP",
      );
      expect(
        (await totp.confirm(user.context, { code: totpCodeAt(secret, now - 30_000) })).enabled,
      ).toBe(true);
    });

    it("5 wrong confirmations burn the pending secret: 429 even for the right code, until enroll", async () => {
      const f = fixture();
      const { totp, user } = await openSignedIn(f);
      const { secret } = await totp.enroll(user.context);
      const wrong = wrongCodeAt(secret, f.clock.now());
      for (let i = 0; i < MAX_ATTEMPTS; i++) {
        await expectTotpError(totp.confirm(user.context, { code: wrong }), "INVALID_TOTP");
      }
      await expectRateLimited(
        totp.confirm(user.context, { code: totpCodeAt(secret, f.clock.now()) }),
      );
      const fresh = await totp.enroll(user.context);
      expect(
        (await totp.confirm(user.context, { code: totpCodeAt(fresh.secret, f.clock.now()) }))
          .enabled,
      ).toBe(true);
    });

    it.each([
      ["anonymous", anonymousAuth, "AUTH_REQUIRED"],
      ["the admin token", adminAuth, "AUTH_REQUIRED"],
    ] as const)("%s cannot use it (%s)", async (_label, caller, code) => {
      const f = fixture();
      const totp = await openTotp(f);
      await expectAuthError(totp.status(caller), code);
      await expectAuthError(totp.enroll(caller), code);
      await expectAuthError(totp.confirm(caller, { code: "123456" }), code);
      await expectAuthError(totp.disable(caller, { code: "123456" }), code);
      await expectAuthError(totp.listDevices(caller), code);
      await expectAuthError(totp.revokeDevice(caller, "x"), code);
    });

    it("a guest session cannot enrol (403 GUEST_NOT_ALLOWED)", async () => {
      const f = fixture();
      const totp = await openTotp(f);
      const guest = await f.auth.createGuest({});
      const context = await f.auth.resolveSession(guest.token);
      await expectAuthError(totp.enroll(context as AuthContext), "GUEST_NOT_ALLOWED");
    });
  });

  describe("sign-in challenge", () => {
    it("no TOTP: the gate lets the sign-in through", async () => {
      const f = fixture();
      const { totp, user } = await openSignedIn(f);
      expect(await totp.gate.challenge(user.userId, DEVICE)).toBeNull();
    });

    it("enabled: the next sign-in is challenged; a TOTP code finishes it with a session", async () => {
      const f = fixture();
      const { totp, user, secret } = await openEnabled(f);
      const required = await totp.gate.challenge(user.userId, DEVICE);
      expect(required).toEqual({
        second_factor_required: true,
        challenge: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
        methods: ["totp", "backup_code"],
      });
      const signIn = await totp.verifyChallenge(
        { challenge: required?.challenge, code: totpCodeAt(secret, f.clock.now()) },
        DEVICE,
      );
      expect(signIn.trusted_device).toBeUndefined();
      expect(signIn.expires_at).toBe(Math.floor(f.clock.now() / 1000) + f.auth.sessionLifetimeSecs);
      await expectSession(f, signIn, user.userId);
      const events = await f.accountTables
        .selectFrom("svc_audit")
        .selectAll()
        .where("kind", "=", "SecondFactor")
        .execute();
      expect(events).toHaveLength(1);
      expect(JSON.parse(events[0]?.data ?? "{}")).toEqual({
        method: "totp",
        trusted_device: false,
      });
      expect(events[0]?.ip).toBe(DEVICE.ip);
    });

    it("the challenge is stored as an HMAC only", async () => {
      const f = fixture();
      const { challenge } = await challenged(f);
      const rows = await totpTables(f).selectFrom("svc_totp_challenges").selectAll().execute();
      expect(rows).toHaveLength(1);
      expect(rows[0]?.id).toMatch(/^[0-9a-f]{64}$/);
      expect(rows[0]?.id).not.toBe(sha256Hex(challenge));
      expect(JSON.stringify(rows)).not.toContain(challenge);
    });

    it("a challenge is single use: 401 INVALID_CHALLENGE the second time", async () => {
      const f = fixture();
      const { totp, secret, backupCodes, challenge } = await challenged(f);
      await answerNow(f, totp, { challenge, secret });
      f.clock.advance(30_000);
      await expectTotpError(answerNow(f, totp, { challenge, secret }), "INVALID_CHALLENGE");
      await expectTotpError(
        totp.verifyChallenge({ challenge, backup_code: backupCodes[0] }, DEVICE),
        "INVALID_CHALLENGE",
      );
    });

    it.each([
      ["missing", undefined],
      ["not a string", 42],
      ["malformed", "abc"],
      ["unknown", "A".repeat(43)],
    ])("a %s challenge is 401 INVALID_CHALLENGE", async (_label, challenge) => {
      const f = fixture();
      const { totp, secret } = await openEnabled(f);
      await expectTotpError(answerNow(f, totp, { challenge, secret }), "INVALID_CHALLENGE");
    });

    it("a challenge expires after 10 minutes", async () => {
      const f = fixture();
      const { totp, secret, challenge } = await challenged(f);
      f.clock.advance(CHALLENGE_TTL_MS);
      await expectTotpError(answerNow(f, totp, { challenge, secret }), "INVALID_CHALLENGE");
    });

    it("a challenge just inside its 10 minutes still works", async () => {
      const f = fixture();
      const { totp, user, secret, challenge } = await challenged(f);
      f.clock.advance(CHALLENGE_TTL_MS - 1000);
      const signIn = await answerNow(f, totp, { challenge, secret });
      await expectSession(f, signIn, user.userId);
    });

    it("a challenge without a code is 400 MISSING_CODE and stays usable", async () => {
      const f = fixture();
      const { totp, user, secret, challenge } = await challenged(f);
      await expectAuthError(totp.verifyChallenge({ challenge }, DEVICE), "MISSING_CODE");
      await expectAuthError(totp.verifyChallenge({ challenge, code: "" }, DEVICE), "MISSING_CODE");
      const signIn = await answerNow(f, totp, { challenge, secret });
      await expectSession(f, signIn, user.userId);
    });

    it("wrong codes are 401 INVALID_TOTP; after 5 the challenge is burned (429, even the right code)", async () => {
      const f = fixture();
      const { totp, user, secret, challenge } = await challenged(f);
      const wrong = wrongCodeAt(secret, f.clock.now());
      for (let i = 0; i < MAX_ATTEMPTS - 1; i++) {
        await expectTotpError(
          totp.verifyChallenge({ challenge, code: wrong }, DEVICE),
          "INVALID_TOTP",
        );
      }
      await expectTotpError(
        totp.verifyChallenge({ challenge, backup_code: "zzzzz-zzzzz" }, DEVICE),
        "INVALID_TOTP",
      );
      await expectRateLimited(answerNow(f, totp, { challenge, secret }));
      // A new sign-in gets a new challenge, and the code works there.
      const fresh = await challengeFor(totp, user.userId);
      const signIn = await answerNow(f, totp, { challenge: fresh, secret });
      await expectSession(f, signIn, user.userId);
    });

    it("a code is accepted once (replay refused), the next step's code works", async () => {
      const f = fixture();
      const { totp, user, secret } = await openEnabled(f);
      const code = totpCodeAt(secret, f.clock.now());
      await signInWith(totp, user.userId, { code });
      const second = await challengeFor(totp, user.userId);
      await expectTotpError(
        totp.verifyChallenge({ challenge: second, code }, DEVICE),
        "INVALID_TOTP",
      );
      f.clock.advance(30_000);
      // Still inside the window as the previous step, still refused.
      await expectTotpError(
        totp.verifyChallenge({ challenge: second, code }, DEVICE),
        "INVALID_TOTP",
      );
      const signIn = await answerNow(f, totp, { challenge: second, secret });
      await expectSession(f, signIn, user.userId);
    });

    it("the code that confirmed enrolment cannot sign in (same step)", async () => {
      const f = fixture();
      const { totp, user } = await openSignedIn(f);
      const { secret } = await totp.enroll(user.context);
      const code = totpCodeAt(secret, f.clock.now());
      await totp.confirm(user.context, { code });
      const challenge = await challengeFor(totp, user.userId);
      await expectTotpError(totp.verifyChallenge({ challenge, code }, DEVICE), "INVALID_TOTP");
    });

    it("a challenge issued before TOTP was disabled is refused", async () => {
      const f = fixture();
      const { totp, user, secret, challenge } = await challenged(f);
      await totp.disable(user.context, { code: totpCodeAt(secret, f.clock.now()) });
      f.clock.advance(30_000);
      await expectTotpError(answerNow(f, totp, { challenge, secret }), "INVALID_CHALLENGE");
    });
  });

  describe("backup codes", () => {
    it("a backup code signs in once; status counts it", async () => {
      const f = fixture();
      const { totp, user, backupCodes } = await openEnabled(f);
      const code = backupCodes[3] ?? "";
      const signIn = await signInWith(totp, user.userId, { backup_code: code });
      await expectSession(f, signIn, user.userId);
      expect(await totp.status(user.context)).toEqual({ enabled: true, backup_codes_left: 9 });
      await expectTotpError(signInWith(totp, user.userId, { backup_code: code }), "INVALID_TOTP");
      const events = await f.accountTables
        .selectFrom("svc_audit")
        .select("data")
        .where("kind", "=", "SecondFactor")
        .execute();
      expect(events.map((event) => JSON.parse(event.data))).toEqual([
        { method: "backup_code", trusted_device: false },
      ]);
    });

    it("is accepted in the code field too, in any case and grouping", async () => {
      const f = fixture();
      const { totp, user, backupCodes } = await openEnabled(f);
      const typed = (backupCodes[0] ?? "").toUpperCase().replace("-", " ");
      const signIn = await signInWith(totp, user.userId, { code: typed });
      await expectSession(f, signIn, user.userId);
    });

    it("another user's backup code is refused", async () => {
      const f = fixture();
      const totp = await openTotp(f);
      const a = await enable(f, totp, "a@example.com");
      const b = await enable(f, totp, "b@example.com");
      await expectTotpError(
        signInWith(totp, b.user.userId, { backup_code: a.backupCodes[0] }),
        "INVALID_TOTP",
      );
    });
  });

  describe("trusted devices", () => {
    async function trusted(f: AuthFixture, totp: Totp, enabled: Enabled) {
      const signIn = await signInWith(totp, enabled.user.userId, {
        code: totpCodeAt(enabled.secret, f.clock.now()),
        trust_device: true,
      });
      const device = signIn.trusted_device;
      if (device === undefined) throw new Error("expected a trusted device");
      return { signIn, device };
    }

    it("trust_device answers a token for 30 days; the device then skips the challenge", async () => {
      const f = fixture();
      const { totp, ...enabled } = await openEnabled(f);
      const { signIn, device } = await trusted(f, totp, enabled);
      await expectSession(f, signIn, enabled.user.userId);
      expect(device.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(device.expires_at).toBe(Math.floor((f.clock.now() + TRUSTED_DEVICE_TTL_MS) / 1000));
      const row = await f.tables
        .selectFrom("svc_trusted_device")
        .selectAll()
        .executeTakeFirstOrThrow();
      expect(row.id).toBe(sha256Hex(device.token));
      expect(row.user_agent).toBe(DEVICE.userAgent);
      expect(
        await totp.gate.challenge(enabled.user.userId, { ...DEVICE, trustedDevice: device.token }),
      ).toBeNull();
      // Without the token, or with a wrong one, the same user is challenged.
      await challengeFor(totp, enabled.user.userId);
      await challengeFor(totp, enabled.user.userId, { trustedDevice: `${device.token}x` });
      await challengeFor(totp, enabled.user.userId, { trustedDevice: "" });
    });

    it("skips the challenge until 30 days are over, not after", async () => {
      const f = fixture();
      const { totp, ...enabled } = await openEnabled(f);
      const { device } = await trusted(f, totp, enabled);
      const client = { ...DEVICE, trustedDevice: device.token };
      f.clock.advance(TRUSTED_DEVICE_TTL_MS - 1000);
      expect(await totp.gate.challenge(enabled.user.userId, client)).toBeNull();
      f.clock.advance(1000);
      expect(await totp.gate.challenge(enabled.user.userId, client)).not.toBeNull();
      expect(await totp.listDevices(enabled.user.context)).toEqual([]);
    });

    it("does not skip the challenge for another user", async () => {
      const f = fixture();
      const totp = await openTotp(f);
      const a = await enable(f, totp, "a@example.com");
      const b = await enable(f, totp, "b@example.com");
      const { device } = await trusted(f, totp, a);
      await challengeFor(totp, b.user.userId, { trustedDevice: device.token });
    });

    it("lists the caller's devices without tokens; revoking one brings the challenge back", async () => {
      const f = fixture();
      const totp = await openTotp(f);
      const a = await enable(f, totp, "a@example.com");
      const b = await enable(f, totp, "b@example.com");
      const { device } = await trusted(f, totp, a);
      f.clock.advance(30_000);
      await trusted(f, totp, b);
      const list = await totp.listDevices(a.user.context);
      expect(list).toEqual([
        {
          id: sha256Hex(device.token),
          created_at: device.expires_at - TRUSTED_DEVICE_TTL_MS / 1000,
          expires_at: device.expires_at,
          user_agent: DEVICE.userAgent,
        },
      ]);
      expect(JSON.stringify(list)).not.toContain(device.token);
      const id = list[0]?.id ?? "";
      // Another user's device, or an unknown id: 404.
      await expectAuthError(totp.revokeDevice(b.user.context, id), "NOT_FOUND");
      await expectAuthError(totp.revokeDevice(a.user.context, "unknown"), "NOT_FOUND");
      expect(await totp.revokeDevice(a.user.context, id, "198.51.100.1")).toEqual({
        revoked: true,
      });
      await expectAuthError(totp.revokeDevice(a.user.context, id), "NOT_FOUND");
      expect(await totp.listDevices(a.user.context)).toEqual([]);
      await challengeFor(totp, a.user.userId, { trustedDevice: device.token });
      expect(await totp.listDevices(b.user.context)).toHaveLength(1);
      expect(await auditKinds(f, a.user.userId)).toContain("TrustedDeviceRevoke");
    });
  });

  describe("disable", () => {
    it("needs a code: missing 400, wrong 401; with the right code everything goes", async () => {
      const f = fixture();
      const { totp, ...enabled } = await openEnabled(f);
      const { user, secret } = enabled;
      await signInWith(totp, user.userId, {
        code: totpCodeAt(secret, f.clock.now()),
        trust_device: true,
      });
      await challengeFor(totp, user.userId);
      f.clock.advance(30_000);
      await expectAuthError(totp.disable(user.context, {}), "MISSING_CODE");
      await expectTotpError(
        totp.disable(user.context, { code: wrongCodeAt(secret, f.clock.now()) }),
        "INVALID_TOTP",
      );
      expect(await totp.disable(user.context, { code: totpCodeAt(secret, f.clock.now()) })).toEqual(
        {
          disabled: true,
        },
      );
      expect(await totp.status(user.context)).toEqual({ enabled: false, backup_codes_left: 0 });
      expect(await totp.listDevices(user.context)).toEqual([]);
      expect(await totp.gate.challenge(user.userId, DEVICE)).toBeNull();
      for (const table of ["svc_totp", "svc_backup_codes", "svc_totp_challenges"] as const) {
        const left = await totpTables(f)
          .selectFrom(table)
          .selectAll()
          .where("user_id", "=", user.userId)
          .execute();
        expect(left, table).toEqual([]);
      }
      expect(await f.tables.selectFrom("svc_trusted_device").selectAll().execute()).toEqual([]);
      expect(await auditKinds(f, user.userId)).toContain("TotpDisable");
      // Enrolling again starts from scratch.
      expect((await totp.enroll(user.context)).secret).toMatch(BASE32);
    });

    it("accepts an unused backup code, not a used one", async () => {
      const f = fixture();
      const { totp, user, backupCodes } = await openEnabled(f);
      await signInWith(totp, user.userId, { backup_code: backupCodes[0] });
      await expectTotpError(totp.disable(user.context, { code: backupCodes[0] }), "INVALID_TOTP");
      expect(await totp.disable(user.context, { backup_code: backupCodes[1] })).toEqual({
        disabled: true,
      });
    });

    it("refuses a code already used to sign in (replay)", async () => {
      const f = fixture();
      const { totp, user, secret } = await openEnabled(f);
      const code = totpCodeAt(secret, f.clock.now());
      await signInWith(totp, user.userId, { code });
      await expectTotpError(totp.disable(user.context, { code }), "INVALID_TOTP");
    });

    it("without TOTP is 400 TOTP_NOT_ENROLLED (pending counts as not enrolled)", async () => {
      const f = fixture();
      const { totp, user } = await openSignedIn(f);
      await expectTotpError(totp.disable(user.context, { code: "123456" }), "TOTP_NOT_ENROLLED");
      await totp.enroll(user.context);
      await expectTotpError(totp.disable(user.context, { code: "123456" }), "TOTP_NOT_ENROLLED");
    });

    it("5 wrong codes lock it for 15 minutes (429), then the right code works", async () => {
      const f = fixture();
      const { totp, user, secret } = await openEnabled(f);
      for (let i = 0; i < MAX_ATTEMPTS; i++) {
        await expectTotpError(
          totp.disable(user.context, { code: wrongCodeAt(secret, f.clock.now()) }),
          "INVALID_TOTP",
        );
      }
      const retryAfter = await expectRateLimited(
        totp.disable(user.context, { code: totpCodeAt(secret, f.clock.now()) }),
      );
      expect(retryAfter).toBe(WRONG_CODE_WINDOW_MS / 1000);
      f.clock.advance(WRONG_CODE_WINDOW_MS);
      expect(await totp.disable(user.context, { code: totpCodeAt(secret, f.clock.now()) })).toEqual(
        {
          disabled: true,
        },
      );
    });

    it("deleteForUser removes every trace (for account deletion)", async () => {
      const f = fixture();
      const { totp, user, secret } = await openEnabled(f);
      await signInWith(totp, user.userId, {
        code: totpCodeAt(secret, f.clock.now()),
        trust_device: true,
      });
      const removed = await f.db
        .transaction()
        .execute((trx) => totp.deleteForUser(trx, user.userId));
      expect(removed).toEqual({ secret: true, backupCodes: 10, trustedDevices: 1 });
      expect(await totp.status(user.context)).toEqual({ enabled: false, backup_codes_left: 0 });
    });
  });
});
