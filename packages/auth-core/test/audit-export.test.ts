import { type AuthContext, adminAuth, anonymousAuth, type ManifestInput } from "@svc/schema";
import { describe, expect, it } from "vitest";
import type { AuditEvent } from "../src/index.js";
import {
  type AuthFixture,
  databases,
  expectAuthError,
  sessionOf,
  sha256Hex,
  useAuthFixture,
  userManifest,
} from "./fixture.js";
import { todoEntity } from "./manifests.js";

// The audit trail and the admin export in the core, on every database: what
// each flow records, newest first with cursors, who sees what, and an export
// holding everything about one user but no secret.

const PASSWORD = "a good long password";
const JWT = { secret: "j".repeat(40), issuer: "svc" };
const CLIENT = { ip: "198.51.100.7", userAgent: "audit-test/1.0" };
const link = { baseURL: "http://localhost:3000", trustedOrigins: [] };

const manifest = {
  ...userManifest,
  entities: [
    ...userManifest.entities,
    todoEntity,
    // No owner field: never part of an export.
    { name: "Note", fields: [{ name: "text", type: "string" }] },
  ],
} satisfies ManifestInput;

async function contextOf(f: AuthFixture, token: string): Promise<AuthContext> {
  const context = await f.auth.resolveSession(token);
  if (context === null) throw new Error("the session did not resolve");
  return context;
}

/** Every event `auth` may see with `query`, page by page with `limit`. */
async function allPages(
  f: AuthFixture,
  auth: AuthContext,
  query: Record<string, unknown>,
  limit: number,
): Promise<{ events: AuditEvent[]; pages: number }> {
  const events: AuditEvent[] = [];
  let pages = 0;
  let cursor: string | undefined;
  for (;;) {
    const page = await f.auth.listAudit(auth, {
      ...query,
      limit,
      ...(cursor !== undefined && { cursor }),
    });
    pages += 1;
    expect(page.events.length).toBeLessThanOrEqual(limit);
    events.push(...page.events);
    if (page.next_cursor === null) break;
    cursor = page.next_cursor;
    if (pages > 100) throw new Error("the cursor never ends");
  }
  return { events, pages };
}

describe.each(databases)("audit events on $name", (database) => {
  const fixture = useAuthFixture(database, {
    manifest,
    auth: { jwt: JWT },
  });

  /** Drives every audited flow for one user, a second apart; returns what it made. */
  async function everyFlow(f: AuthFixture, email: string) {
    const step = () => f.clock.advance(1000);
    const at: Record<string, string> = {};
    const mark = (name: string) => {
      at[name] = new Date(f.clock.now()).toISOString();
    };
    mark("signUp");
    const registered = await f.auth.registerPassword({ email, password: PASSWORD }, CLIENT);
    step();
    // The address is verified from the sign-up's own session before any
    // sign-in by code: a code sign-in into an unverified password account
    // would claim it (AccountClaim) and end the other sessions.
    mark("verify");
    const own = await contextOf(f, registered.token);
    await f.auth.sendVerification(own, { exposeDevCode: false });
    await f.auth.verifyEmail(own, { code: f.lastCode(email) });
    step();
    mark("password");
    const loggedIn = sessionOf(await f.auth.loginPassword({ email, password: PASSWORD }, CLIENT));
    step();
    mark("magicCode");
    await f.auth.sendMagicCode({ email }, { exposeDevCode: false });
    const magic = sessionOf(
      await f.auth.verifyMagicCode({ email, code: f.lastCode(email) }, CLIENT),
    );
    step();
    mark("magicLink");
    await f.auth.sendMagicLink({ email }, { ...link, exposeDevCode: false });
    const token = f.lastLink(email).searchParams.get("token");
    const linked = sessionOf(await f.auth.verifyMagicLink({ email, token }, CLIENT));
    step();
    const caller = await contextOf(f, magic.token);
    mark("keyCreate");
    const key = await f.auth.createApiKey(caller, { name: "audited" }, "198.51.100.8");
    step();
    mark("keyRevoke");
    await f.auth.revokeApiKey(caller, key.id, "198.51.100.9");
    step();
    mark("jwt");
    const minted = await f.auth.mintJWT(caller, "198.51.100.10");
    step();
    mark("signOut");
    await f.auth.revokeSession(await contextOf(f, loggedIn.token));
    step();
    return { userId: registered.user_id, registered, loggedIn, magic, linked, key, minted, at };
  }

  it("records each flow's event with its kind, data, time and address, newest first", async () => {
    const f = fixture();
    const made = await everyFlow(f, "a@example.com");
    const { at } = made;
    const deleteAt = new Date(f.clock.now()).toISOString();
    await f.auth.deleteAccount(await contextOf(f, made.magic.token), "198.51.100.11");
    const { events } = await f.auth.listAudit(adminAuth, { user_id: made.userId });
    const shape = (kind: string, when: string | undefined, data: object, ip: string | null) => ({
      id: expect.stringMatching(/^[0-9a-f]{32}$/),
      user_id: made.userId,
      kind,
      at: when,
      data,
      ip,
    });
    const session = (token: string) => sha256Hex(token);
    expect(events).toEqual([
      shape(
        "AccountDelete",
        deleteAt,
        { sessions: 3, api_keys: 0, linked_accounts: 0, trusted_devices: 0 },
        "198.51.100.11",
      ),
      shape("SignOut", at.signOut, { session_id: session(made.loggedIn.token) }, null),
      shape("JwtMint", at.jwt, { expires_at: made.minted.expires_at }, "198.51.100.10"),
      shape("ApiKeyRevoke", at.keyRevoke, { key_id: made.key.id }, "198.51.100.9"),
      shape("ApiKeyCreate", at.keyCreate, { key_id: made.key.id, name: "audited" }, "198.51.100.8"),
      shape(
        "SignIn",
        at.magicLink,
        { method: "magic-link", session_id: session(made.linked.token) },
        CLIENT.ip,
      ),
      shape(
        "SignIn",
        at.magicCode,
        { method: "magic-code", session_id: session(made.magic.token) },
        CLIENT.ip,
      ),
      shape(
        "SignIn",
        at.password,
        { method: "password", session_id: session(made.loggedIn.token) },
        CLIENT.ip,
      ),
      shape("EmailVerify", at.verify, { email: "a@example.com" }, null),
      shape(
        "SignUp",
        at.signUp,
        { method: "sign-up", session_id: session(made.registered.token) },
        CLIENT.ip,
      ),
    ]);
  });

  it("records guest sessions and revoking every session", async () => {
    const f = fixture();
    const guest = await f.auth.createGuest(CLIENT);
    f.clock.advance(1000);
    const { context, userId } = await f.signIn("a@example.com");
    f.clock.advance(1000);
    await f.auth.revokeAllSessions(context);
    const guestEvents = await f.auth.listAudit(adminAuth, { user_id: guest.user_id });
    expect(guestEvents.events).toEqual([
      expect.objectContaining({
        kind: "GuestSession",
        data: { method: "guest", session_id: sha256Hex(guest.token) },
        ip: CLIENT.ip,
      }),
    ]);
    const own = await f.auth.listAudit(context, {});
    expect(own.events.map((event) => [event.kind, event.data])).toEqual([
      ["SessionsRevoke", { sessions: 1 }],
      ["SignIn", expect.objectContaining({ method: "magic-code" })],
    ]);
    expect(own.events.every((event) => event.user_id === userId)).toBe(true);
  });

  it("pages newest first with cursors, every event exactly once, ties included", async () => {
    const f = fixture();
    await everyFlow(f, "a@example.com");
    // Several events in the same millisecond: the cursor must order them too.
    for (let i = 0; i < 5; i++) await f.auth.createGuest({});
    const full = await f.auth.listAudit(adminAuth, { limit: 200 });
    expect(full.next_cursor).toBeNull();
    expect(full.events.length).toBeGreaterThanOrEqual(14);
    const times = full.events.map((event) => Date.parse(event.at));
    expect(times).toEqual([...times].sort((a, b) => b - a));

    const paged = await allPages(f, adminAuth, {}, 2);
    expect(paged.events).toEqual(full.events);
    expect(paged.pages).toBe(Math.ceil(full.events.length / 2));
    expect(new Set(paged.events.map((event) => event.id)).size).toBe(full.events.length);

    const byOne = await allPages(f, adminAuth, {}, 1);
    expect(byOne.events).toEqual(full.events);
  });

  it("shows a user only their own events; the admin everyone's, filtered by user_id and kind", async () => {
    const f = fixture();
    // A second apart: events of one millisecond have no defined order among themselves.
    const alice = await f.signIn("alice@example.com");
    f.clock.advance(1000);
    const bob = await f.signIn("bob@example.com");
    f.clock.advance(1000);
    await f.auth.createApiKey(alice.context, { name: "alice key" });
    f.clock.advance(1000);
    await f.auth.createApiKey(bob.context, { name: "bob key" });
    f.clock.advance(1000);
    await f.auth.mintJWT(bob.context);

    const own = await allPages(f, alice.context, {}, 2);
    expect(own.events.map((event) => event.kind)).toEqual(["ApiKeyCreate", "SignIn"]);
    expect(own.events.every((event) => event.user_id === alice.userId)).toBe(true);
    // A user cannot look at someone else's events by asking.
    const asking = await f.auth.listAudit(alice.context, { user_id: bob.userId });
    expect(asking.events).toEqual(own.events);
    const ownKind = await f.auth.listAudit(bob.context, { kind: "JwtMint" });
    expect(ownKind.events.map((event) => [event.user_id, event.kind])).toEqual([
      [bob.userId, "JwtMint"],
    ]);

    const everyone = await f.auth.listAudit(adminAuth, {});
    const users = new Set(everyone.events.map((event) => event.user_id));
    expect(users).toEqual(new Set([alice.userId, bob.userId]));
    const bobs = await f.auth.listAudit(adminAuth, { user_id: bob.userId });
    expect(bobs.events.map((event) => event.kind)).toEqual(["JwtMint", "ApiKeyCreate", "SignIn"]);
    const keys = await allPages(f, adminAuth, { kind: "ApiKeyCreate" }, 1);
    expect(keys.events.map((event) => [event.user_id, event.data.name])).toEqual([
      [bob.userId, "bob key"],
      [alice.userId, "alice key"],
    ]);
    const both = await f.auth.listAudit(adminAuth, { user_id: alice.userId, kind: "SignIn" });
    expect(both.events.map((event) => [event.user_id, event.kind])).toEqual([
      [alice.userId, "SignIn"],
    ]);
    expect((await f.auth.listAudit(adminAuth, { kind: "NoSuchKind" })).events).toEqual([]);
  });

  it("needs a caller: anonymous is 401 AUTH_REQUIRED", async () => {
    const f = fixture();
    await expectAuthError(f.auth.listAudit(anonymousAuth, {}), "AUTH_REQUIRED", 401);
  });

  it.each([
    ["limit 0", { limit: 0 }],
    ["limit 201", { limit: 201 }],
    ['limit "0"', { limit: "0" }],
    ['limit "201"', { limit: "201" }],
    ['limit "x"', { limit: "x" }],
    ['limit ""', { limit: "" }],
    ['limit "1.5"', { limit: "1.5" }],
    ['limit "-1"', { limit: "-1" }],
    ["two limits", { limit: ["1", "2"] }],
    ['cursor "x"', { cursor: "x" }],
    ['cursor ""', { cursor: "" }],
    ["a cursor without its id", { cursor: "1764064800000" }],
    ["a cursor with a short id", { cursor: `1764064800000_${"a".repeat(31)}` }],
    ["a cursor with upper-case hex", { cursor: `1764064800000_${"A".repeat(32)}` }],
    ["a numeric cursor", { cursor: 5 }],
    ["two cursors", { cursor: [`1_${"a".repeat(32)}`, `2_${"a".repeat(32)}`] }],
    ["two kinds", { kind: ["SignIn", "SignUp"] }],
  ])("%s is 400 INVALID_QUERY", async (_what, query) => {
    const f = fixture();
    const { context } = await f.signIn("a@example.com");
    await expectAuthError(f.auth.listAudit(context, query), "INVALID_QUERY", 400);
    await expectAuthError(f.auth.listAudit(adminAuth, query), "INVALID_QUERY", 400);
  });

  it("an admin user_id that is not a string is 400 INVALID_QUERY", async () => {
    const f = fixture();
    await expectAuthError(
      f.auth.listAudit(adminAuth, { user_id: ["a", "b"] }),
      "INVALID_QUERY",
      400,
    );
  });

  it('accepts limits "1" and "200" and a well-formed cursor', async () => {
    const f = fixture();
    const { context } = await f.signIn("a@example.com");
    expect((await f.auth.listAudit(context, { limit: "1" })).events).toHaveLength(1);
    expect((await f.auth.listAudit(context, { limit: "200" })).events).toHaveLength(1);
    const past = await f.auth.listAudit(context, { cursor: `1_${"f".repeat(32)}` });
    expect(past).toEqual({ events: [], next_cursor: null });
  });
});

describe.each(databases)("the admin export on $name", (database) => {
  const fixture = useAuthFixture(database, { manifest });

  it("holds the user, sessions, keys, links, audit and owned rows, and no secret", async () => {
    const f = fixture();
    const email = "export@example.com";
    const registered = await f.auth.registerPassword({ email, password: PASSWORD }, CLIENT);
    const userId = registered.user_id;
    // A second session by password (a code sign-in would claim the unverified account).
    const loggedIn = sessionOf(await f.auth.loginPassword({ email, password: PASSWORD }, {}));
    const signedIn = { token: loggedIn.token, context: await contextOf(f, loggedIn.token) };
    const key = await f.auth.createApiKey(signedIn.context, { name: "exported", scopes: "x" });
    const revokedKey = await f.auth.createApiKey(signedIn.context, { name: "revoked" });
    await f.auth.revokeApiKey(signedIn.context, revokedKey.id);
    await f.auth.resolveApiKey(key.key);
    await f.accountTables
      .insertInto("svc_linked_accounts")
      .values({
        id: "link-1",
        user_id: userId,
        provider: "github",
        provider_user_id: "gh-42",
        email,
        created_at: 1_700_000_000,
      })
      .execute();
    const todo = await f.store.transaction(adminAuth, (tx) =>
      tx.insert("Todo", { title: "mine", ownerId: userId }),
    );
    const other = await f.signIn("other@example.com");
    await f.store.transaction(adminAuth, (tx) =>
      tx.insert("Todo", { title: "theirs", ownerId: other.userId }),
    );
    await f.store.transaction(adminAuth, (tx) => tx.insert("Note", { text: userId }));

    const exported = await f.auth.exportUser(userId);
    expect(Object.keys(exported).sort()).toEqual([
      "api_keys",
      "audit",
      "entities",
      "exported_at",
      "linked_accounts",
      "sessions",
      "user",
      "user_id",
    ]);
    expect(exported.user_id).toBe(userId);
    expect(exported.exported_at).toBe(new Date(f.clock.now()).toISOString());
    expect(exported.user).toMatchObject({ id: userId, email });
    expect(new Set(exported.sessions)).toEqual(
      new Set([
        {
          id: sha256Hex(registered.token),
          guest: false,
          created_at: Math.floor(f.clock.now() / 1000),
          expires_at: registered.expires_at,
          user_agent: CLIENT.userAgent,
          ip: CLIENT.ip,
        },
        {
          id: sha256Hex(signedIn.token),
          guest: false,
          created_at: Math.floor(f.clock.now() / 1000),
          expires_at: expect.any(Number),
          user_agent: null,
          ip: null,
        },
      ]),
    );
    expect(exported.api_keys).toEqual(await f.auth.listApiKeys(signedIn.context));
    expect(exported.api_keys).toEqual([
      expect.objectContaining({ id: key.id, name: "exported", scopes: "x" }),
    ]);
    expect(exported.linked_accounts).toEqual([
      { provider: "github", provider_user_id: "gh-42", email, created_at: 1_700_000_000 },
    ]);
    const audit = await f.auth.listAudit(adminAuth, { user_id: userId, limit: 200 });
    expect(exported.audit).toEqual(audit.events);
    expect(exported.audit.map((event) => event.kind).sort()).toEqual(
      ["ApiKeyCreate", "ApiKeyCreate", "ApiKeyRevoke", "SignIn", "SignUp"].sort(),
    );
    expect(exported.entities).toEqual({ Todo: [todo] });

    const text = JSON.stringify(exported);
    const password = await f.accountTables
      .selectFrom("svc_passwords")
      .select("hash")
      .where("user_id", "=", userId)
      .executeTakeFirstOrThrow();
    const hashes = await f.tables
      .selectFrom("svc_api_keys")
      .select("secret_hash")
      .where("user_id", "=", userId)
      .execute();
    const secrets = [
      registered.token,
      signedIn.token,
      key.key,
      key.key.slice(key.key.lastIndexOf(".") + 1),
      revokedKey.key.slice(revokedKey.key.lastIndexOf(".") + 1),
      password.hash,
      password.hash.split("$").at(-1) ?? "",
      ...hashes.map((row) => row.secret_hash),
    ];
    expect(hashes).toHaveLength(1);
    for (const secret of secrets) {
      expect(secret.length).toBeGreaterThan(20);
      expect(text).not.toContain(secret);
    }
    expect(text).not.toMatch(/\$argon2/);
    expect(text).not.toContain("secret_hash");
  });

  it("exports a guest (no User row) and a deleted user's surviving audit", async () => {
    const f = fixture();
    const guest = await f.auth.createGuest({});
    expect(await f.auth.exportUser(guest.user_id)).toMatchObject({
      user_id: guest.user_id,
      user: null,
      sessions: [expect.objectContaining({ id: sha256Hex(guest.token), guest: true })],
    });
    const { context, userId } = await f.signIn("gone@example.com");
    f.clock.advance(1000);
    await f.auth.deleteAccount(context);
    const exported = await f.auth.exportUser(userId);
    expect(exported).toMatchObject({ user: null, sessions: [], api_keys: [] });
    expect(exported.audit.map((event) => event.kind)).toEqual(["AccountDelete", "SignIn"]);
  });

  it.each([
    ["an unknown id", "0".repeat(40)],
    ["an empty id", ""],
    ["a path", "../etc/passwd"],
    ["a 129-character id", "a".repeat(129)],
  ])("%s is 404 NOT_FOUND", async (_what, id) => {
    const f = fixture();
    await f.signIn("a@example.com");
    await expectAuthError(f.auth.exportUser(id), "NOT_FOUND", 404);
  });
});
