import { adminAuth } from "@svc/schema";
import { afterEach, describe, expect, it, vi } from "vitest";
import {
  type ExternalIdentity,
  type SignInResult,
  SYNTHESIZED_EMAIL_DOMAIN,
  synthesizedEmail,
} from "../src/index.js";
import {
  type AuthFixture,
  databases,
  expectAuthError,
  sessionOf,
  totpCodeAt,
  useAuthFixture,
} from "./fixture.js";
import { accountFields, userManifestWith } from "./manifests.js";

// External identities (OAuth, OpenID Connect) becoming users, links and
// sessions, on every database: a verified email links, an unverified one
// never does, identities without a usable email get a reserved `.invalid`
// address nobody can claim, and a second factor still applies.

const PASSWORD = "a good long password";

function identity(overrides: Partial<ExternalIdentity> = {}): ExternalIdentity {
  return {
    provider: "github",
    providerUserId: "gh-1",
    email: "ada@example.com",
    emailVerified: true,
    ...overrides,
  };
}

async function links(f: AuthFixture) {
  return f.accountTables
    .selectFrom("svc_linked_accounts")
    .select(["user_id", "provider", "provider_user_id", "email", "created_at"])
    .orderBy("provider_user_id")
    .execute();
}

async function users(f: AuthFixture) {
  return (await f.store.systemReader().query("User", { orderBy: { field: "email" } })).rows;
}

async function auditKinds(f: AuthFixture) {
  const rows = await f.accountTables
    .selectFrom("svc_audit")
    .select(["kind", "data", "user_id"])
    .orderBy("at")
    .orderBy("id")
    .execute();
  return rows.map((row) => ({ kind: row.kind, user: row.user_id, data: JSON.parse(row.data) }));
}

afterEach(() => {
  vi.useRealTimers();
});

describe.each(databases)("signInWithIdentity on $name", (database) => {
  const fixture = useAuthFixture(database);

  it("a first sign-in with a verified email creates the user verified, links it and records SignUp and AccountLink", async () => {
    const f = fixture();
    const session = sessionOf(await f.auth.signInWithIdentity(identity(), { ip: "10.0.0.1" }));
    expect(await users(f)).toEqual([
      expect.objectContaining({
        id: session.user_id,
        email: "ada@example.com",
        emailVerified: f.clock.iso(),
      }),
    ]);
    expect(await links(f)).toEqual([
      {
        user_id: session.user_id,
        provider: "github",
        provider_user_id: "gh-1",
        email: "ada@example.com",
        created_at: Math.floor(f.clock.now() / 1000),
      },
    ]);
    const caller = await f.auth.resolveSession(session.token);
    expect(caller?.userId).toBe(session.user_id);
    // One clock tick: order by kind.
    const events = (await auditKinds(f)).sort((a, b) => a.kind.localeCompare(b.kind));
    expect(events).toEqual([
      {
        kind: "AccountLink",
        user: session.user_id,
        data: { provider: "github", email_verified: true },
      },
      {
        kind: "SignUp",
        user: session.user_id,
        data: expect.objectContaining({ method: "oauth", provider: "github" }),
      },
    ]);
  });

  it("the next sign-in of the identity reuses the user and the link and records SignIn", async () => {
    const f = fixture();
    const first = sessionOf(await f.auth.signInWithIdentity(identity(), {}));
    f.clock.advance(1000);
    const second = sessionOf(await f.auth.signInWithIdentity(identity(), {}));
    expect(second.user_id).toBe(first.user_id);
    expect(second.token).not.toBe(first.token);
    expect(await links(f)).toHaveLength(1);
    expect((await auditKinds(f)).map((event) => event.kind).sort()).toEqual([
      "AccountLink",
      "SignIn",
      "SignUp",
    ]);
  });

  it("a verified email links to the existing user with that address and stamps emailVerified", async () => {
    const f = fixture();
    const registered = await f.auth.registerPassword(
      { email: "ada@example.com", password: PASSWORD },
      {},
    );
    expect((await users(f))[0]?.emailVerified ?? null).toBeNull();
    const session = sessionOf(
      await f.auth.signInWithIdentity(identity({ email: "  Ada@Example.com " }), {}),
    );
    expect(session.user_id).toBe(registered.user_id);
    expect(await users(f)).toEqual([
      expect.objectContaining({ id: registered.user_id, emailVerified: f.clock.iso() }),
    ]);
    expect(await links(f)).toEqual([expect.objectContaining({ user_id: registered.user_id })]);
  });

  it("an unverified email that belongs to a user is refused with ACCOUNT_NOT_LINKED and writes nothing", async () => {
    const f = fixture();
    const victim = await f.signIn("ada@example.com");
    const before = await auditKinds(f);
    await expectAuthError(
      f.auth.signInWithIdentity(identity({ emailVerified: false }), {}),
      "ACCOUNT_NOT_LINKED",
      409,
    );
    expect(await links(f)).toEqual([]);
    expect((await users(f)).map((user) => user.id)).toEqual([victim.userId]);
    expect(await auditKinds(f)).toEqual(before);
  });

  it("an unverified email of nobody gets a synthesized address, is never stamped and never claims the email", async () => {
    const f = fixture();
    const session = sessionOf(
      await f.auth.signInWithIdentity(identity({ emailVerified: false }), {}),
    );
    const address = synthesizedEmail("github", "gh-1");
    expect(address.endsWith(`@${SYNTHESIZED_EMAIL_DOMAIN}`)).toBe(true);
    const [user] = await users(f);
    expect(user).toEqual(expect.objectContaining({ id: session.user_id, email: address }));
    expect(user?.emailVerified ?? null).toBeNull();
    // The provider's address is kept on the link for the record only.
    expect(await links(f)).toEqual([expect.objectContaining({ email: "ada@example.com" })]);
    // The real owner of the address signs up separately later.
    const owner = await f.signIn("ada@example.com");
    expect(owner.userId).not.toBe(session.user_id);
  });

  it("an identity without an email gets a stable synthesized address per identity", async () => {
    const f = fixture();
    const tw = identity({
      provider: "twitter",
      providerUserId: "t-1",
      email: null,
      emailVerified: true,
    });
    const first = sessionOf(await f.auth.signInWithIdentity(tw, {}));
    const again = sessionOf(await f.auth.signInWithIdentity(tw, {}));
    const other = sessionOf(await f.auth.signInWithIdentity({ ...tw, providerUserId: "t-2" }, {}));
    expect(again.user_id).toBe(first.user_id);
    expect(other.user_id).not.toBe(first.user_id);
    const emails = (await users(f)).map((user) => user.email);
    expect(emails.sort()).toEqual(
      [synthesizedEmail("twitter", "t-1"), synthesizedEmail("twitter", "t-2")].sort(),
    );
    expect(new Set(emails).size).toBe(2);
  });

  it("nobody can claim a synthesized address by magic code or password", async () => {
    const f = fixture();
    const tw = identity({ provider: "twitter", providerUserId: "t-1", email: null });
    await f.auth.signInWithIdentity(tw, {});
    const address = synthesizedEmail("twitter", "t-1");
    await expectAuthError(
      f.auth.sendMagicCode({ email: address }, { exposeDevCode: true }),
      "INVALID_EMAIL",
    );
    await expectAuthError(
      f.auth.registerPassword({ email: address, password: PASSWORD }, {}),
      "INVALID_EMAIL",
    );
    await expectAuthError(
      f.auth.loginPassword({ email: address.toUpperCase(), password: PASSWORD }, {}),
      "INVALID_EMAIL",
    );
    await expectAuthError(
      f.auth.sendMagicCode({ email: "someone@anything.invalid." }, { exposeDevCode: true }),
      "INVALID_EMAIL",
    );
  });

  it("a provider's `.invalid` or malformed address counts as no email", async () => {
    const f = fixture();
    const session = sessionOf(
      await f.auth.signInWithIdentity(
        identity({ email: `x@${SYNTHESIZED_EMAIL_DOMAIN}`, emailVerified: true }),
        {},
      ),
    );
    const malformed = sessionOf(
      await f.auth.signInWithIdentity(
        identity({ providerUserId: "gh-2", email: "not an address", emailVerified: true }),
        {},
      ),
    );
    const emails = (await users(f)).map((user) => user.email).sort();
    expect(emails).toEqual(
      [synthesizedEmail("github", "gh-1"), synthesizedEmail("github", "gh-2")].sort(),
    );
    expect(session.user_id).not.toBe(malformed.user_id);
  });

  it("a linked identity signs in its user even when the provider now reports another user's address", async () => {
    const f = fixture();
    const linked = sessionOf(await f.auth.signInWithIdentity(identity(), {}));
    const bob = await f.signIn("bob@example.com");
    const again = sessionOf(
      await f.auth.signInWithIdentity(identity({ email: "bob@example.com" }), {}),
    );
    expect(again.user_id).toBe(linked.user_id);
    expect(again.user_id).not.toBe(bob.userId);
    expect(await links(f)).toHaveLength(1);
  });

  it("one user may hold identities of several providers", async () => {
    const f = fixture();
    const gh = sessionOf(await f.auth.signInWithIdentity(identity(), {}));
    const google = sessionOf(
      await f.auth.signInWithIdentity(identity({ provider: "google", providerUserId: "g-9" }), {}),
    );
    expect(google.user_id).toBe(gh.user_id);
    expect((await links(f)).map((link) => link.provider).sort()).toEqual(["github", "google"]);
  });

  it("two concurrent first sign-ins of one identity end on one user and one link", async () => {
    const f = fixture();
    const results = await Promise.all([
      f.auth.signInWithIdentity(identity(), {}),
      f.auth.signInWithIdentity(identity(), {}),
      f.auth.signInWithIdentity(identity(), {}),
    ]);
    const ids = new Set(results.map((result) => sessionOf(result).user_id));
    expect(ids.size).toBe(1);
    expect(await users(f)).toHaveLength(1);
    expect(await links(f)).toHaveLength(1);
  });

  it("concurrent first sign-ins linking to one existing user make one link", async () => {
    const f = fixture();
    const existing = await f.signIn("ada@example.com");
    for (let round = 0; round < 5; round++) {
      const id = `race-${round}`;
      const results = await Promise.all(
        [1, 2, 3].map(() => f.auth.signInWithIdentity(identity({ providerUserId: id }), {})),
      );
      expect(new Set(results.map((result) => sessionOf(result).user_id))).toEqual(
        new Set([existing.userId]),
      );
    }
    expect(await links(f)).toHaveLength(5);
  });

  it("a link whose user row was removed behind auth's back is dropped and the identity starts over", async () => {
    const f = fixture();
    const first = sessionOf(await f.auth.signInWithIdentity(identity(), {}));
    await f.store.transaction(adminAuth, (tx) => tx.delete("User", first.user_id));
    const second = sessionOf(await f.auth.signInWithIdentity(identity(), {}));
    expect(second.user_id).not.toBe(first.user_id);
    expect(await links(f)).toEqual([expect.objectContaining({ user_id: second.user_id })]);
  });

  it("a user with a second factor gets the challenge instead of a session", async () => {
    const f = fixture();
    const signedUp = sessionOf(await f.auth.signInWithIdentity(identity(), {}));
    const context = await f.auth.resolveSession(signedUp.token);
    if (context === null) throw new Error("the new session did not resolve");
    const { secret } = await f.auth.totp.enroll(context);
    await f.auth.totp.confirm(context, { code: totpCodeAt(secret, f.clock.now()) });
    f.clock.advance(30_000);
    const result: SignInResult = await f.auth.signInWithIdentity(identity(), {});
    expect(result).toEqual({
      second_factor_required: true,
      challenge: expect.any(String),
      methods: ["totp", "backup_code"],
    });
  });

  it("account deletion unlinks the identity, and the next sign-in makes a fresh user", async () => {
    const f = fixture();
    const first = sessionOf(await f.auth.signInWithIdentity(identity(), {}));
    const context = await f.auth.resolveSession(first.token);
    if (context === null) throw new Error("the new session did not resolve");
    const deleted = await f.auth.deleteAccount(context);
    expect(deleted.unlinked_accounts).toBe(1);
    expect(await links(f)).toEqual([]);
    const again = sessionOf(await f.auth.signInWithIdentity(identity(), {}));
    expect(again.user_id).not.toBe(first.user_id);
  });

  it("the export lists the user's linked accounts", async () => {
    const f = fixture();
    const session = sessionOf(await f.auth.signInWithIdentity(identity(), {}));
    const exported = await f.auth.exportUser(session.user_id);
    expect(exported.linked_accounts).toEqual([
      expect.objectContaining({ provider: "github", provider_user_id: "gh-1" }),
    ]);
  });

  it("refuses an identity without a provider or user id as a programming error", async () => {
    const f = fixture();
    await expect(f.auth.signInWithIdentity(identity({ provider: "" }), {})).rejects.toThrow(
      TypeError,
    );
    await expect(f.auth.signInWithIdentity(identity({ provider: "GitHub" }), {})).rejects.toThrow(
      TypeError,
    );
    await expect(f.auth.signInWithIdentity(identity({ providerUserId: "" }), {})).rejects.toThrow(
      TypeError,
    );
    expect(await users(f)).toEqual([]);
  });
});

describe.each(databases)("signInWithIdentity without a User entity on $name", (database) => {
  const fixture = useAuthFixture(database, {
    manifest: { manifest_version: 1, name: "no-users", version: "1", entities: [] },
  });

  it("answers USER_ENTITY_MISSING", async () => {
    const f = fixture();
    await expectAuthError(f.auth.signInWithIdentity(identity(), {}), "USER_ENTITY_MISSING");
  });
});

describe.each(databases)("signInWithIdentity with profile fields on $name", (database) => {
  const fixture = useAuthFixture(database, {
    manifest: userManifestWith([
      ...accountFields,
      { name: "name", type: "string", optional: true },
      { name: "image", type: "string", optional: true },
    ]),
  });

  it("a new user gets the provider's name and picture; an existing user keeps its own", async () => {
    const f = fixture();
    const created = sessionOf(
      await f.auth.signInWithIdentity(
        identity({ name: "  Ada Lovelace ", avatarUrl: "https://img.example/ada.png" }),
        {},
      ),
    );
    expect(await f.store.systemReader().get("User", created.user_id)).toMatchObject({
      name: "Ada Lovelace",
      image: "https://img.example/ada.png",
    });
    const existing = await f.insertUser({ email: "bob@example.com", name: "Robert" });
    await f.auth.signInWithIdentity(
      identity({ providerUserId: "gh-2", email: "bob@example.com", name: "Bobby" }),
      {},
    );
    expect(await f.store.systemReader().get("User", existing.id)).toMatchObject({
      name: "Robert",
    });
  });

  it("ignores a profile value with control characters or absurd length", async () => {
    const f = fixture();
    const session = sessionOf(
      await f.auth.signInWithIdentity(
        identity({ name: "Ada\u0000", avatarUrl: `https://img.example/${"a".repeat(3000)}` }),
        {},
      ),
    );
    const user = await f.store.systemReader().get("User", session.user_id);
    expect(user?.name ?? null).toBeNull();
    expect(user?.image ?? null).toBeNull();
  });
});
