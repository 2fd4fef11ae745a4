import { type AuthContext, adminAuth } from "@svc/schema";
import type { KyselyPlugin, PluginTransformResultArgs, QueryResult, UnknownRow } from "kysely";
import { describe, expect, it } from "vitest";
import { type Auth, createAuth, type SignIn, type SignInResult } from "../src/index.js";
import {
  type AuthFixture,
  databases,
  expectAuthError,
  FROM,
  SECRET,
  type SignedIn,
  sessionOf,
  totpCodeAt,
  useAuthFixture,
} from "./fixture.js";

// Account pre-hijacking, on every database. Anyone may register a password
// account for an address they do not own; the account stays unverified.
// When the address's owner later proves it (magic code, magic link, or an
// OAuth identity whose verified email is that address), the sign-in lands on
// the same User. Before the fix the registrant's password, sessions and API
// keys kept working, so attacker and owner shared the account. Now that
// proof removes every credential made before it (AccountClaim), while a
// user who verifies their own address from their own session keeps all.

const VICTIM = "victim@example.com";
const ATTACKER_PASSWORD = "attacker's long password";
const OWNER = { ip: "203.0.113.9", userAgent: "owner-browser/1.0" };
const ATTACKER = { ip: "198.51.100.66", userAgent: "attacker/1.0" };
const JWT = { secret: "j".repeat(40), issuer: "svc" };

type Proof = "magic-code" | "magic-link" | "oauth";
const proofs: readonly Proof[] = ["magic-code", "magic-link", "oauth"];

/** The address's owner proves it by `proof` and signs in. */
async function proveAsOwner(
  f: AuthFixture,
  proof: Proof,
  email = VICTIM,
  auth: Auth = f.auth,
): Promise<SignInResult> {
  if (proof === "magic-code") {
    await auth.sendMagicCode({ email }, { exposeDevCode: false });
    return auth.verifyMagicCode({ email, code: f.lastCode(email) }, OWNER);
  }
  if (proof === "magic-link") {
    const targets = { baseURL: "http://localhost:3000", trustedOrigins: [] };
    await auth.sendMagicLink({ email }, { ...targets, exposeDevCode: false });
    const token = f.lastLink(email).searchParams.get("token");
    return auth.verifyMagicLink({ email, token }, OWNER);
  }
  return auth.signInWithIdentity(
    { provider: "github", providerUserId: "gh-owner", email, emailVerified: true },
    OWNER,
  );
}

async function contextOf(f: AuthFixture, token: string): Promise<AuthContext> {
  const context = await f.auth.resolveSession(token);
  if (context === null) throw new Error("the session did not resolve");
  return context;
}

/** The attacker: registers the victim's address, signs in again and makes an API key. */
async function preHijack(f: AuthFixture) {
  const registered = await f.auth.registerPassword(
    { email: VICTIM, password: ATTACKER_PASSWORD },
    ATTACKER,
  );
  const again = sessionOf(
    await f.auth.loginPassword({ email: VICTIM, password: ATTACKER_PASSWORD }, ATTACKER),
  );
  const context = await contextOf(f, again.token);
  const key = await f.auth.createApiKey(context, { name: "backdoor" }, ATTACKER.ip);
  // Resolved once each, so the SQLite caches hold them when the owner comes.
  expect(await f.auth.resolveApiKey(key.key)).toMatchObject({ userId: registered.user_id });
  await contextOf(f, registered.token);
  return { userId: registered.user_id, tokens: [registered.token, again.token], context, key };
}

async function claimEvents(f: AuthFixture, userId: string) {
  const { events } = await f.auth.listAudit(adminAuth, { user_id: userId, kind: "AccountClaim" });
  return events;
}

async function passwordRows(f: AuthFixture, userId: string): Promise<number> {
  const rows = await f.accountTables
    .selectFrom("svc_passwords")
    .select("user_id")
    .where("user_id", "=", userId)
    .execute();
  return rows.length;
}

describe.each(databases)("account pre-hijacking on $name", (database) => {
  const fixture = useAuthFixture(database, { auth: { jwt: JWT } });

  it.each(proofs)(
    "the owner's %s sign-in ends the registrant's password, sessions and API keys",
    async (proof) => {
      const f = fixture();
      const attacker = await preHijack(f);
      f.clock.advance(1000);
      const owner = sessionOf(await proveAsOwner(f, proof));
      expect(owner.user_id).toBe(attacker.userId);
      expect(await f.store.systemReader().get("User", owner.user_id)).toMatchObject({
        emailVerified: f.clock.iso(),
      });

      // The attacker's way back in is gone, at once and cached or not.
      await expectAuthError(
        f.auth.loginPassword({ email: VICTIM, password: ATTACKER_PASSWORD }, ATTACKER),
        "INVALID_CREDENTIALS",
      );
      for (const token of attacker.tokens) expect(await f.auth.resolveSession(token)).toBeNull();
      await expectAuthError(f.auth.resolveApiKey(attacker.key.key), "INVALID_API_KEY");
      expect(await passwordRows(f, attacker.userId)).toBe(0);
      // Registering the address again is still refused: it has an account.
      await expectAuthError(
        f.auth.registerPassword({ email: VICTIM, password: ATTACKER_PASSWORD }, ATTACKER),
        "EMAIL_IN_USE",
      );

      // The owner's own session works and is the only one.
      const ownerContext = await contextOf(f, owner.token);
      expect((await f.auth.listSessions(ownerContext)).map((session) => session.current)).toEqual([
        true,
      ]);
      expect(await f.auth.listApiKeys(ownerContext)).toEqual([]);
      expect(await claimEvents(f, attacker.userId)).toEqual([
        expect.objectContaining({
          kind: "AccountClaim",
          at: new Date(f.clock.now()).toISOString(),
          ip: OWNER.ip,
          data: {
            method: proof,
            ...(proof === "oauth" && { provider: "github" }),
            password: true,
            sessions: 2,
            api_keys: 1,
            totp: false,
            trusted_devices: 0,
            phone: false,
          },
        }),
      ]);
    },
  );

  it.each(proofs)("after a %s claim the owner's later sign-ins revoke nothing", async (proof) => {
    const f = fixture();
    await preHijack(f);
    const first = sessionOf(await proveAsOwner(f, proof));
    f.clock.advance(61_000);
    const second = sessionOf(await proveAsOwner(f, proof));
    expect(second.user_id).toBe(first.user_id);
    expect(await f.auth.resolveSession(first.token)).not.toBeNull();
    expect(await claimEvents(f, first.user_id)).toHaveLength(1);
  });

  it("a second factor and trusted device the registrant set up are removed, so the owner is not challenged", async () => {
    const f = fixture();
    const attacker = await preHijack(f);
    const { secret } = await f.auth.totp.enroll(attacker.context);
    await f.auth.totp.confirm(attacker.context, { code: totpCodeAt(secret, f.clock.now()) });
    f.clock.advance(30_000);
    const challenged = await f.auth.loginPassword(
      { email: VICTIM, password: ATTACKER_PASSWORD },
      ATTACKER,
    );
    if (!("challenge" in challenged)) throw new Error("expected a second-factor challenge");
    const passed = await f.auth.totp.verifyChallenge(
      {
        challenge: challenged.challenge,
        code: totpCodeAt(secret, f.clock.now()),
        trust_device: true,
      },
      ATTACKER,
    );
    const device = passed.trusted_device?.token;
    expect(device).toBeDefined();
    // An open challenge of the registrant's, too.
    f.clock.advance(30_000);
    const open = await f.auth.loginPassword(
      { email: VICTIM, password: ATTACKER_PASSWORD },
      { ...ATTACKER, trustedDevice: "not-the-device" },
    );
    if (!("challenge" in open)) throw new Error("expected a second-factor challenge");

    f.clock.advance(1000);
    // Without the fix the owner got the registrant's challenge here.
    const owner = sessionOf(await proveAsOwner(f, "magic-code"));
    const ownerContext = await contextOf(f, owner.token);
    expect(await f.auth.totp.status(ownerContext)).toEqual({
      enabled: false,
      backup_codes_left: 0,
    });
    expect(await f.auth.totp.listDevices(ownerContext)).toEqual([]);
    await expectAuthError(
      f.auth.totp.verifyChallenge(
        { challenge: open.challenge, code: totpCodeAt(secret, f.clock.now()) },
        ATTACKER,
      ),
      "INVALID_CHALLENGE",
    );
    expect(await f.auth.resolveSession(passed.token)).toBeNull();
    expect((await claimEvents(f, attacker.userId))[0]?.data).toMatchObject({
      sessions: 3,
      totp: true,
      trusted_devices: 1,
    });
  });

  it("a phone number the registrant put on the account is removed with the password", async () => {
    const f = fixture();
    const attacker = await preHijack(f);
    // What an app function letting users edit their own row could do.
    await f.store.transaction(adminAuth, (tx) =>
      tx.update("User", attacker.userId, { phone: "+14155550100" }),
    );
    await proveAsOwner(f, "magic-code");
    expect(await f.store.systemReader().get("User", attacker.userId)).toMatchObject({
      phone: null,
    });
    expect((await claimEvents(f, attacker.userId))[0]?.data).toMatchObject({ phone: true });
    const auth = f.createAuth({ sms: f.inbox });
    await auth.sendPhoneCode({ phone: "+14155550100" }, { exposeDevCode: false });
    await expectAuthError(
      auth.verifyPhoneCode({ phone: "+14155550100", code: f.lastCode("+14155550100") }, ATTACKER),
      "USER_NOT_FOUND",
    );
  });

  it("a request whose session was resolved before the claim cannot make an API key or a JWT after it", async () => {
    const f = fixture();
    const attacker = await preHijack(f);
    await proveAsOwner(f, "magic-code");
    // `attacker.context` is what a request in flight during the claim holds.
    await expectAuthError(
      f.auth.createApiKey(attacker.context, { name: "late" }, ATTACKER.ip),
      "INVALID_TOKEN",
    );
    await expectAuthError(f.auth.mintJWT(attacker.context, ATTACKER.ip), "INVALID_TOKEN");
    const keys = await f.tables
      .selectFrom("svc_api_keys")
      .select("id")
      .where("user_id", "=", attacker.userId)
      .execute();
    expect(keys).toEqual([]);
  });

  it("a password login that checked the hash before the claim committed gets no session", async () => {
    const f = fixture();
    const attacker = await preHijack(f);
    // Pause the login right after it read the hash (before argon2 and the
    // session) and let the owner claim the account meanwhile.
    let claimed: Promise<SignInResult> | undefined;
    const hashReads = new Set<unknown>();
    const pauseAfterHashRead: KyselyPlugin = {
      transformQuery(args) {
        const node = args.node;
        if (
          claimed === undefined &&
          node.kind === "SelectQueryNode" &&
          JSON.stringify(node.from).includes('"svc_passwords"')
        ) {
          hashReads.add(args.queryId);
        }
        return node;
      },
      async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
        if (claimed === undefined && hashReads.has(args.queryId)) {
          claimed = proveAsOwner(f, "magic-code");
          await claimed;
        }
        return args.result;
      },
    };
    const racing = createAuth({
      store: f.store,
      database: { ...f.database, db: f.db.withPlugin(pauseAfterHashRead) },
      secret: SECRET,
      now: f.clock.now,
      email: { transport: f.mailer, from: FROM, devInbox: undefined },
    });
    await expectAuthError(
      racing.loginPassword({ email: VICTIM, password: ATTACKER_PASSWORD }, ATTACKER),
      "INVALID_CREDENTIALS",
    );
    expect(claimed).toBeDefined();
    const owner = sessionOf(await (claimed as Promise<SignInResult>));
    const sessions = await f.tables
      .selectFrom("svc_sessions")
      .select("id")
      .where("user_id", "=", attacker.userId)
      .execute();
    expect(sessions).toHaveLength(1);
    expect(await f.auth.resolveSession(owner.token)).not.toBeNull();
    await racing.close();
  });

  it("registering, then verifying the address from that session, keeps the password and the session", async () => {
    const f = fixture();
    const registered = await f.registerVerified(VICTIM, ATTACKER_PASSWORD);
    expect(await f.store.systemReader().get("User", registered.userId)).toMatchObject({
      emailVerified: f.clock.iso(),
    });
    const key = await f.auth.createApiKey(registered.context, { name: "mine" });
    f.clock.advance(1000);
    // A later code sign-in of the verified account takes nothing away either.
    const byCode = sessionOf(await proveAsOwner(f, "magic-code"));
    const byProvider = sessionOf(await proveAsOwner(f, "oauth"));
    expect(new Set([byCode.user_id, byProvider.user_id])).toEqual(new Set([registered.userId]));
    expect(await f.auth.resolveSession(registered.token)).not.toBeNull();
    expect(await f.auth.resolveApiKey(key.key)).toMatchObject({ userId: registered.userId });
    const login = await f.auth.loginPassword({ email: VICTIM, password: ATTACKER_PASSWORD }, {});
    expect(sessionOf(login).user_id).toBe(registered.userId);
    expect(await claimEvents(f, registered.userId)).toEqual([]);
  });

  it("an unverified account without a password is only stamped: its other sessions stay", async () => {
    const f = fixture();
    // A row the app made, signed in by phone: no password to distrust.
    const user = await f.insertUser({ email: VICTIM, phone: "+14155550100" });
    const auth = f.createAuth({ sms: f.inbox });
    await auth.sendPhoneCode({ phone: "+14155550100" }, { exposeDevCode: false });
    const byPhone: SignIn = sessionOf(
      await auth.verifyPhoneCode({ phone: "+14155550100", code: f.lastCode("+14155550100") }, {}),
    );
    const owner: SignedIn = await f.signIn(VICTIM);
    expect(owner.userId).toBe(user.id);
    expect(await f.auth.resolveSession(byPhone.token)).not.toBeNull();
    expect(await f.store.systemReader().get("User", user.id)).toMatchObject({
      emailVerified: f.clock.iso(),
      phone: "+14155550100",
    });
    expect(await claimEvents(f, user.id)).toEqual([]);
  });

  it("an OAuth identity whose email the provider did not verify claims nothing", async () => {
    const f = fixture();
    const attacker = await preHijack(f);
    await expectAuthError(
      f.auth.signInWithIdentity(
        { provider: "github", providerUserId: "gh-x", email: VICTIM, emailVerified: false },
        OWNER,
      ),
      "ACCOUNT_NOT_LINKED",
    );
    expect(await passwordRows(f, attacker.userId)).toBe(1);
    expect(await f.auth.resolveSession(attacker.tokens[0] ?? "")).not.toBeNull();
  });
});

describe.each(databases)(
  "account pre-hijacking without User.emailVerified on $name",
  (database) => {
    // Without the field no address is ever verified, so every password counts
    // as unproven: the first proof of the address removes it, once.
    const fixture = useAuthFixture(database, {
      manifest: {
        manifest_version: 1,
        name: "no-verified-field",
        version: "1",
        entities: [{ name: "User", fields: [{ name: "email", type: "string", unique: true }] }],
      },
    });

    it.each(proofs)(
      "a %s sign-in removes the registrant's password and sessions once",
      async (proof) => {
        const f = fixture();
        const registered = await f.auth.registerPassword(
          { email: VICTIM, password: ATTACKER_PASSWORD },
          ATTACKER,
        );
        const owner = sessionOf(await proveAsOwner(f, proof));
        expect(owner.user_id).toBe(registered.user_id);
        expect(await f.auth.resolveSession(registered.token)).toBeNull();
        await expectAuthError(
          f.auth.loginPassword({ email: VICTIM, password: ATTACKER_PASSWORD }, ATTACKER),
          "INVALID_CREDENTIALS",
        );
        f.clock.advance(61_000);
        const again = sessionOf(await proveAsOwner(f, proof));
        expect(await f.auth.resolveSession(owner.token)).not.toBeNull();
        expect(again.user_id).toBe(owner.user_id);
        expect(await claimEvents(f, owner.user_id)).toHaveLength(1);
      },
    );
  },
);
