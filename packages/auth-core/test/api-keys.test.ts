import { type AuthContext, adminAuth, anonymousAuth, createAuthContext } from "@svc/schema";
import { describe, expect, it } from "vitest";
import type { ApiKeyRecord, NewApiKey } from "../src/index.js";
import { plainUserContext } from "./contexts.js";
import {
  type AuthFixture,
  databases,
  expectAuthError,
  rejectionOf,
  START,
  sha256Hex,
  useAuthFixture,
} from "./fixture.js";

// API keys in the core, on every database: the key is answered once, only an
// HMAC of its secret is stored, a key resolves to its owner with no roles,
// revocation and expiry refuse it at once with INVALID_API_KEY, last_used_at
// only moves forward, and key management needs a real session.

const KEY = /^pk\.key_[a-z0-9]{24}\.[A-Za-z0-9_-]{43}$/;
const KEY_ID = /^key_[a-z0-9]{24}$/;
// The first 16 characters: "pk.key_" and 9 id characters (the spec's
// "pk.key_<8 id chars>" miscounts; the 16 is what is binding).
const PREFIX = /^pk\.key_[a-z0-9]{9}$/;
const START_SECS = Math.floor(START / 1000);

const recordKeys = ["created_at", "expires_at", "id", "last_used_at", "name", "prefix", "scopes"];

/** The secret part of a full key: what follows its last dot. */
function secretOf(key: string): string {
  return key.slice(key.lastIndexOf(".") + 1);
}

function keyRow(f: AuthFixture, id: string) {
  return f.tables
    .selectFrom("svc_api_keys")
    .selectAll()
    .where("id", "=", id)
    .executeTakeFirstOrThrow();
}

async function lastUsedInTable(f: AuthFixture, id: string): Promise<number | null> {
  const row = await keyRow(f, id);
  return row.last_used_at === null ? null : Number(row.last_used_at);
}

async function guestContext(f: AuthFixture): Promise<AuthContext> {
  const { token } = await f.auth.createGuest({});
  const context = await f.auth.resolveSession(token);
  if (context === null) throw new Error("a fresh guest session did not resolve");
  return context;
}

describe.each(databases)("API keys on $name", (database) => {
  const fixture = useAuthFixture(database);

  it("create answers the key once, with the record's exact shape and formats", async () => {
    const f = fixture();
    const { context } = await f.signIn("a@example.com");
    const created = await f.auth.createApiKey(context, { name: "  CI deploy  " });
    expect(Object.keys(created).sort()).toEqual([...recordKeys, "key"].sort());
    expect(created.key).toMatch(KEY);
    expect(created.id).toMatch(KEY_ID);
    expect(created.prefix).toMatch(PREFIX);
    expect(created.prefix).toBe(created.key.slice(0, 16));
    expect(created.key).toBe(`pk.${created.id}.${secretOf(created.key)}`);
    expect(created).toMatchObject({
      name: "CI deploy",
      scopes: null,
      expires_at: null,
      last_used_at: null,
      created_at: START_SECS,
    });
    // 256 random bits: two keys never share id or secret.
    const second = await f.auth.createApiKey(context, { name: "other" });
    expect(second.id).not.toBe(created.id);
    expect(secretOf(second.key)).not.toBe(secretOf(created.key));
  });

  it("list shows records newest first and never a key, secret or hash", async () => {
    const f = fixture();
    const { context } = await f.signIn("a@example.com");
    const first = await f.auth.createApiKey(context, { name: "first" });
    f.clock.advance(1000);
    const second = await f.auth.createApiKey(context, { name: "second", scopes: "todos:read" });
    const listed = await f.auth.listApiKeys(context);
    expect(listed.map((record) => record.id)).toEqual([second.id, first.id]);
    for (const record of listed) expect(Object.keys(record).sort()).toEqual(recordKeys);
    const { key: _key, ...secondRecord } = second;
    expect(listed[0]).toEqual(secondRecord);
    const text = JSON.stringify(listed);
    for (const created of [first, second]) {
      const row = await keyRow(f, created.id);
      expect(text).not.toContain(created.key);
      expect(text).not.toContain(secretOf(created.key));
      expect(text).not.toContain(row.secret_hash);
    }
    expect(text).not.toContain("secret_hash");
  });

  it("the table keeps an HMAC of the secret (64 hex), the plaintext in no column", async () => {
    const f = fixture();
    const { context, userId } = await f.signIn("a@example.com");
    const created = await f.auth.createApiKey(context, { name: "stored", scopes: "a,b" });
    const row = await keyRow(f, created.id);
    const secret = secretOf(created.key);
    expect(row.secret_hash).toMatch(/^[0-9a-f]{64}$/);
    // Not a bare digest of anything the client holds.
    for (const plain of [secret, created.key, `${created.id}.${secret}`]) {
      expect(row.secret_hash).not.toBe(sha256Hex(plain));
    }
    expect(row).toMatchObject({
      id: created.id,
      user_id: userId,
      name: "stored",
      prefix: created.prefix,
      scopes: "a,b",
    });
    for (const value of Object.values(row)) {
      expect(String(value)).not.toContain(secret);
      expect(String(value)).not.toContain(secret.slice(0, 16));
    }
  });

  it("a key resolves to its owner with no roles, no tenant and no session", async () => {
    const f = fixture();
    const { context, userId } = await f.signIn("a@example.com");
    const created = await f.auth.createApiKey(context, { name: "bot" });
    expect(await f.auth.resolveApiKey(created.key)).toEqual(
      plainUserContext(userId, "api-key", null),
    );
    // Tokens of other kinds are not the API key resolver's business.
    expect(await f.auth.resolveApiKey("svc_abc")).toBeNull();
    expect(await f.auth.resolveApiKey("a.b.c")).toBeNull();
  });

  it("active -> revoked: the very next resolve is INVALID_API_KEY, other keys live on", async () => {
    const f = fixture();
    const { context, userId } = await f.signIn("a@example.com");
    const doomed = await f.auth.createApiKey(context, { name: "doomed" });
    const kept = await f.auth.createApiKey(context, { name: "kept" });
    expect(await f.auth.resolveApiKey(doomed.key)).toMatchObject({ userId });
    expect(await f.auth.revokeApiKey(context, doomed.id)).toEqual({ revoked: true });
    await expectAuthError(f.auth.resolveApiKey(doomed.key), "INVALID_API_KEY", 401);
    expect(await f.auth.resolveApiKey(kept.key)).toMatchObject({ userId });
    expect((await f.auth.listApiKeys(context)).map((record) => record.id)).toEqual([kept.id]);
    // A second revoke of the same id finds nothing.
    await expectAuthError(f.auth.revokeApiKey(context, doomed.id), "NOT_FOUND", 404);
  });

  it("revoking through another Auth instance refuses the key within a second", async () => {
    const f = fixture();
    const { context } = await f.signIn("a@example.com");
    const created = await f.auth.createApiKey(context, { name: "shared" });
    await f.auth.resolveApiKey(created.key);
    await f.createAuth().revokeApiKey(context, created.id);
    f.clock.advance(1000);
    await expectAuthError(f.auth.resolveApiKey(created.key), "INVALID_API_KEY", 401);
  });

  it("another user's key id is 404 NOT_FOUND and the key keeps working", async () => {
    const f = fixture();
    const owner = await f.signIn("owner@example.com");
    const other = await f.signIn("other@example.com");
    const created = await f.auth.createApiKey(owner.context, { name: "mine" });
    await expectAuthError(f.auth.revokeApiKey(other.context, created.id), "NOT_FOUND", 404);
    await expectAuthError(f.auth.revokeApiKey(owner.context, `key_${"0".repeat(24)}`), "NOT_FOUND");
    await expectAuthError(f.auth.revokeApiKey(owner.context, ""), "NOT_FOUND");
    expect(await f.auth.resolveApiKey(created.key)).toMatchObject({ userId: owner.userId });
    expect(await f.auth.listApiKeys(other.context)).toEqual([]);
    expect((await f.auth.listApiKeys(owner.context)).map((record) => record.id)).toEqual([
      created.id,
    ]);
  });

  it("active -> expired: works before expires_at, INVALID_API_KEY at and after it", async () => {
    const f = fixture();
    const { context, userId } = await f.signIn("a@example.com");
    const expiresAt = START_SECS + 120;
    const created = await f.auth.createApiKey(context, { name: "short", expires_at: expiresAt });
    expect(created.expires_at).toBe(expiresAt);
    f.clock.set(expiresAt * 1000 - 1500);
    expect(await f.auth.resolveApiKey(created.key)).toMatchObject({ userId });
    f.clock.set(expiresAt * 1000 - 500);
    expect(await f.auth.resolveApiKey(created.key)).toMatchObject({ userId });
    // Within the SQLite cache's second of that use: the expiry still holds.
    f.clock.set(expiresAt * 1000);
    await expectAuthError(f.auth.resolveApiKey(created.key), "INVALID_API_KEY", 401);
    f.clock.set(expiresAt * 1000 + 3_600_000);
    await expectAuthError(f.auth.resolveApiKey(created.key), "INVALID_API_KEY", 401);
    // Expired keys stay listed (with their expiry) until revoked.
    expect((await f.auth.listApiKeys(context))[0]).toMatchObject({ expires_at: expiresAt });
  });

  describe("malformed and unknown pk. tokens are INVALID_API_KEY", () => {
    const id = `key_${"a".repeat(24)}`;
    const secret = "A".repeat(43);
    it.each([
      ["the bare prefix", "pk."],
      ["no secret", `pk.${id}`],
      ["an empty secret", `pk.${id}.`],
      ["an id one short", `pk.key_${"a".repeat(23)}.${secret}`],
      ["an id one long", `pk.key_${"a".repeat(25)}.${secret}`],
      ["upper-case id characters", `pk.key_${"A".repeat(24)}.${secret}`],
      ["a bad id character", `pk.key_${"a".repeat(23)}-.${secret}`],
      ["no key_ in the id", `pk.${"a".repeat(28)}.${secret}`],
      ["a secret one short", `pk.${id}.${"A".repeat(42)}`],
      ["a secret one long", `pk.${id}.${"A".repeat(44)}`],
      ["a bad secret character", `pk.${id}.${"A".repeat(42)}+`],
      ["base64 padding", `pk.${id}.${"A".repeat(42)}=`],
      ["an extra dot", `pk.${id}.${secret}.x`],
      ["an extra dot inside the secret", `pk.${id}.${"A".repeat(21)}.${"A".repeat(21)}`],
      ["a well-formed unknown key", `pk.${id}.${secret}`],
    ])("%s", async (_what, token) => {
      const f = fixture();
      await expectAuthError(f.auth.resolveApiKey(token), "INVALID_API_KEY", 401);
    });

    it("a real key id with another secret", async () => {
      const f = fixture();
      const { context } = await f.signIn("a@example.com");
      const created = await f.auth.createApiKey(context, { name: "real" });
      const secretPart = secretOf(created.key);
      const flipped = `${secretPart.slice(0, -2)}${secretPart.at(-2) === "A" ? "B" : "A"}${secretPart.at(-1)}`;
      await expectAuthError(
        f.auth.resolveApiKey(`pk.${created.id}.${flipped}`),
        "INVALID_API_KEY",
        401,
      );
      const other = await f.auth.createApiKey(context, { name: "other" });
      await expectAuthError(
        f.auth.resolveApiKey(`pk.${created.id}.${secretOf(other.key)}`),
        "INVALID_API_KEY",
        401,
      );
    });
  });

  describe("last_used_at", () => {
    it("is null at creation, then the time of the latest use, visible in the next list", async () => {
      const f = fixture();
      const { context } = await f.signIn("a@example.com");
      const created = await f.auth.createApiKey(context, { name: "used" });
      expect((await f.auth.listApiKeys(context))[0]?.last_used_at).toBeNull();
      expect(await lastUsedInTable(f, created.id)).toBeNull();
      f.clock.advance(5_500);
      await f.auth.resolveApiKey(created.key);
      expect((await f.auth.listApiKeys(context))[0]?.last_used_at).toBe(START_SECS + 5);
      expect(await lastUsedInTable(f, created.id)).toBe(START_SECS + 5);
      const seen: number[] = [];
      for (const step of [2_000, 30_000, 61_000]) {
        f.clock.advance(step);
        await f.auth.resolveApiKey(created.key);
        const listed = (await f.auth.listApiKeys(context))[0]?.last_used_at;
        seen.push(listed ?? -1);
      }
      expect(seen).toEqual([START_SECS + 7, START_SECS + 37, START_SECS + 98]);
    });

    it("never moves backwards when another instance flushes an older use", async () => {
      const f = fixture();
      const { context } = await f.signIn("a@example.com");
      const created = await f.auth.createApiKey(context, { name: "two servers" });
      // This instance's clock lags 10 minutes behind.
      const lagging = f.createAuth({ now: () => f.clock.now() - 600_000 });
      f.clock.advance(60_000);
      await f.auth.resolveApiKey(created.key);
      await f.auth.listApiKeys(context);
      const newest = START_SECS + 60;
      expect(await lastUsedInTable(f, created.id)).toBe(newest);
      await lagging.resolveApiKey(created.key);
      await lagging.close();
      expect(await lastUsedInTable(f, created.id)).toBe(newest);
      expect((await f.auth.listApiKeys(context))[0]?.last_used_at).toBe(newest);
      // A later use still moves it forward.
      f.clock.advance(1_000);
      await lagging.resolveApiKey(created.key);
      await f.auth.resolveApiKey(created.key);
      expect((await f.auth.listApiKeys(context))[0]?.last_used_at).toBe(newest + 1);
    });

    it("is written by close(), without a list", async () => {
      const f = fixture();
      const { context } = await f.signIn("a@example.com");
      const created = await f.auth.createApiKey(context, { name: "closing" });
      f.clock.advance(42_000);
      await f.auth.resolveApiKey(created.key);
      await f.auth.close();
      expect(await lastUsedInTable(f, created.id)).toBe(START_SECS + 42);
    });

    it("a refused key records no use", async () => {
      const f = fixture();
      const { context } = await f.signIn("a@example.com");
      const created = await f.auth.createApiKey(context, {
        name: "x",
        expires_at: START_SECS + 10,
      });
      f.clock.advance(10_000);
      await rejectionOf(f.auth.resolveApiKey(created.key));
      await rejectionOf(f.auth.resolveApiKey(`pk.${created.id}.${"A".repeat(43)}`));
      expect((await f.auth.listApiKeys(context))[0]?.last_used_at).toBeNull();
    });
  });

  describe("key management needs a real session", () => {
    type Operation = (f: AuthFixture, caller: AuthContext) => Promise<unknown>;
    const operations: readonly [string, Operation][] = [
      ["create", (f, caller) => f.auth.createApiKey(caller, { name: "x" })],
      ["list", (f, caller) => f.auth.listApiKeys(caller)],
      ["revoke", (f, caller) => f.auth.revokeApiKey(caller, `key_${"0".repeat(24)}`)],
      ["JWT mint", (f, caller) => f.auth.mintJWT(caller)],
      ["account deletion", (f, caller) => f.auth.deleteAccount(caller)],
    ];
    const callers: readonly {
      caller: string;
      code: "API_KEY_AUTH_FORBIDDEN" | "GUEST_NOT_ALLOWED" | "SESSION_REQUIRED" | "AUTH_REQUIRED";
      status: number;
      make(f: AuthFixture): Promise<AuthContext>;
    }[] = [
      {
        caller: "an API key",
        code: "API_KEY_AUTH_FORBIDDEN",
        status: 403,
        async make(f) {
          const { context } = await f.signIn("a@example.com");
          const { key } = await f.auth.createApiKey(context, { name: "k" });
          const resolved = await f.auth.resolveApiKey(key);
          if (resolved === null) throw new Error("the key did not resolve");
          return resolved;
        },
      },
      { caller: "a guest", code: "GUEST_NOT_ALLOWED", status: 403, make: guestContext },
      {
        caller: "a JWT",
        code: "SESSION_REQUIRED",
        status: 403,
        make: async () => createAuthContext({ userId: "u".repeat(40), via: "jwt" }),
      },
      { caller: "anonymous", code: "AUTH_REQUIRED", status: 401, make: async () => anonymousAuth },
      {
        caller: "the admin token",
        code: "AUTH_REQUIRED",
        status: 401,
        make: async () => adminAuth,
      },
    ];
    const cases = operations.flatMap(([operation, run]) =>
      callers.map((caller) => ({ operation, run, ...caller })),
    );

    it.each(cases)(
      "$operation by $caller -> $status $code",
      async ({ run, make, code, status }) => {
        const f = fixture();
        const caller = await make(f);
        await expectAuthError((async () => run(f, caller))(), code, status);
      },
    );

    // Regression (src/create-auth.ts, listApiKeys): the refusal was thrown
    // synchronously by `listApiKeys` instead of rejecting the promise it
    // returns, so `auth.listApiKeys(caller).catch(...)` never saw it.
    it("list refuses by rejecting its promise, not by a synchronous throw", async () => {
      const f = fixture();
      let thrown: unknown;
      let returned: unknown;
      try {
        returned = f.auth.listApiKeys(anonymousAuth);
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeUndefined();
      expect(returned).toBeInstanceOf(Promise);
      await expectAuthError(returned as Promise<unknown>, "AUTH_REQUIRED", 401);
    });

    it("a refused caller creates, revokes and deletes nothing", async () => {
      const f = fixture();
      const { context, userId, token } = await f.signIn("a@example.com");
      const created = await f.auth.createApiKey(context, { name: "k" });
      const viaKey = await f.auth.resolveApiKey(created.key);
      if (viaKey === null) throw new Error("the key did not resolve");
      await rejectionOf(f.auth.createApiKey(viaKey, { name: "minted by a key" }));
      await rejectionOf(f.auth.revokeApiKey(viaKey, created.id));
      await rejectionOf(f.auth.deleteAccount(viaKey));
      expect((await f.auth.listApiKeys(context)).map((record) => record.id)).toEqual([created.id]);
      expect(await f.store.systemReader().get("User", userId)).not.toBeNull();
      expect(await f.auth.resolveSession(token)).not.toBeNull();
    });
  });

  describe("validation", () => {
    const future = START_SECS + 3600;
    it.each([
      ["a missing name", {}, "INVALID_KEY_NAME"],
      ["a null name", { name: null }, "INVALID_KEY_NAME"],
      ["an empty name", { name: "" }, "INVALID_KEY_NAME"],
      ["a blank name", { name: "   " }, "INVALID_KEY_NAME"],
      ["a 101-character name", { name: "n".repeat(101) }, "INVALID_KEY_NAME"],
      ["a number as name", { name: 42 }, "INVALID_KEY_NAME"],
      ["an array as name", { name: ["a"] }, "INVALID_KEY_NAME"],
      ["a number as scopes", { name: "k", scopes: 7 }, "INVALID_SCOPES"],
      ["an array as scopes", { name: "k", scopes: ["read"] }, "INVALID_SCOPES"],
      ["1001-character scopes", { name: "k", scopes: "s".repeat(1001) }, "INVALID_SCOPES"],
      ["expires_at in the past", { name: "k", expires_at: START_SECS - 1 }, "INVALID_EXPIRY"],
      ["expires_at now", { name: "k", expires_at: START_SECS }, "INVALID_EXPIRY"],
      ["a fractional expires_at", { name: "k", expires_at: future + 0.5 }, "INVALID_EXPIRY"],
      ["expires_at as a string", { name: "k", expires_at: String(future) }, "INVALID_EXPIRY"],
      [
        "expires_at in milliseconds as ISO",
        { name: "k", expires_at: "2030-01-01T00:00:00Z" },
        "INVALID_EXPIRY",
      ],
      ["expires_at true", { name: "k", expires_at: true }, "INVALID_EXPIRY"],
      ["expires_at beyond safe integers", { name: "k", expires_at: 2 ** 60 }, "INVALID_EXPIRY"],
    ] as const)("%s -> 400 %s", async (_what, body, code) => {
      const f = fixture();
      const { context } = await f.signIn("a@example.com");
      await expectAuthError(f.auth.createApiKey(context, body), code, 400);
      expect(await f.auth.listApiKeys(context)).toEqual([]);
    });

    it("accepts the limits: 100-character names, 100 emoji, 1000-character scopes, now + 1 s", async () => {
      const f = fixture();
      const { context } = await f.signIn("a@example.com");
      const accepted: NewApiKey[] = [];
      for (const body of [
        { name: "n".repeat(100) },
        { name: "🔑".repeat(100) },
        { name: "k", scopes: "s".repeat(1000) },
        { name: "k", scopes: null, expires_at: null },
        { name: "k", expires_at: START_SECS + 1 },
      ]) {
        accepted.push(await f.auth.createApiKey(context, body));
      }
      expect(
        accepted.map((created) => [created.name.length, created.scopes, created.expires_at]),
      ).toEqual([
        [100, null, null],
        [200, null, null],
        [1, "s".repeat(1000), null],
        [1, null, null],
        [1, null, START_SECS + 1],
      ]);
    });

    it("stores and returns scopes verbatim and never enforces them", async () => {
      const f = fixture();
      const { context, userId } = await f.signIn("a@example.com");
      const scopes = "  todos:read, todos:write ,,admin; DROP TABLE x  ";
      const scoped = await f.auth.createApiKey(context, { name: "scoped", scopes });
      const empty = await f.auth.createApiKey(context, { name: "empty", scopes: "" });
      const plain = await f.auth.createApiKey(context, { name: "plain" });
      expect(scoped.scopes).toBe(scopes);
      expect(empty.scopes).toBe("");
      const listed = new Map(
        (await f.auth.listApiKeys(context)).map((record): [string, ApiKeyRecord] => [
          record.id,
          record,
        ]),
      );
      expect(listed.get(scoped.id)?.scopes).toBe(scopes);
      expect(listed.get(empty.id)?.scopes).toBe("");
      expect((await keyRow(f, scoped.id)).scopes).toBe(scopes);
      // The caller of a scoped key is the caller of an unscoped one.
      const viaScoped = await f.auth.resolveApiKey(scoped.key);
      expect(viaScoped).toEqual(await f.auth.resolveApiKey(plain.key));
      expect(viaScoped).toMatchObject({ userId, roles: [] });
    });
  });
});
