import { createHash, createHmac } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { dialectFor } from "@svc/store";
import { type TestDatabase, testDatabases } from "@svc/tooling/databases";
import { userEntity } from "@svc/tooling/manifests";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startOnFreshDatabase } from "./app-server.js";
import {
  type AuthTestServer,
  createClock,
  createTestDatabase,
  emailSequence,
  errorOf,
  post,
  readJSON,
  registerPassword,
  request,
  type SignInBody,
  sessionSetCookie,
  signInWithMagicCode,
  startAuthServer,
  type TestClock,
  TRUSTED_ORIGIN,
} from "./auth-fixtures.js";
import { adminRequest, databaseEnv, tempDir } from "./fixtures.js";

// API keys, JWT exchange, account deletion, the audit trail and the admin
// export over HTTP, end to end on the real server, on SQLite and Postgres.

const DEV = { SVC_DEV_MODE: "true", SVC_RATE_LIMIT: "off" } as const;
const JWT_SECRET = "jwt-secret-of-the-credentials-suite-0040";
const JWT_ENV = { SVC_JWT_SECRET: JWT_SECRET, SVC_JWT_ISSUER: "svc" } as const;

const KEY = /^pk\.key_[a-z0-9]{24}\.[A-Za-z0-9_-]{43}$/;
const KEY_ID = /^key_[a-z0-9]{24}$/;
// "pk.key_" plus 9 id characters: the first 16 characters of the key.
const PREFIX = /^pk\.key_[a-z0-9]{9}$/;
const RECORD_KEYS = ["created_at", "expires_at", "id", "last_used_at", "name", "prefix", "scopes"];

interface KeyBody {
  key: string;
  id: string;
  name: string;
  prefix: string;
  scopes: string | null;
  expires_at: number | null;
  last_used_at: number | null;
  created_at: number;
}
type KeyRecord = Omit<KeyBody, "key">;

interface MeBody {
  user_id: string;
  via: string;
  is_guest: boolean;
  session_id: string | null;
  user: Record<string, unknown> | null;
}

interface AuditEventBody {
  id: string;
  user_id: string | null;
  kind: string;
  at: string;
  data: Record<string, unknown>;
  ip: string | null;
}
interface AuditPage {
  events: AuditEventBody[];
  next_cursor: string | null;
}

function nowSecs(clock: TestClock): number {
  return Math.floor(clock.now() / 1000);
}

function secretOf(key: string): string {
  return key.slice(key.lastIndexOf(".") + 1);
}

function sha256Hex(value: string): string {
  return createHash("sha256").update(value).digest("hex");
}

/** The session-store tables (attached schema `auth` on SQLite) and the application tables. */
function tablesOf(server: AuthTestServer) {
  const { db, dialect, schema } = server.auth.database;
  return {
    sessions: dialectFor(dialect).withAttachedSchema(db, schema),
    accounts: db,
  };
}

interface LinkedAccount {
  provider: string;
  provider_user_id: string;
  /** Seconds. */
  created_at: number;
}

/** A linked account written straight into the table: GitHub, linked now, unless `link` says otherwise. */
async function linkAccount(
  server: AuthTestServer,
  userId: string,
  email: string,
  link: Partial<LinkedAccount> = {},
): Promise<void> {
  await tablesOf(server)
    .accounts.insertInto("svc_linked_accounts")
    .values({
      id: `link-${userId}`,
      user_id: userId,
      provider: "github",
      provider_user_id: `gh-${userId}`,
      email,
      created_at: nowSecs(server.clock),
      ...link,
    })
    .execute();
}

/** A device trusted for a day from now, written straight into the session store. */
async function trustDevice(server: AuthTestServer, userId: string): Promise<void> {
  await tablesOf(server)
    .sessions.insertInto("svc_trusted_device")
    .values({
      id: `device-${userId}`,
      user_id: userId,
      created_at: server.clock.now(),
      expires_at: server.clock.now() + 86_400_000,
      user_agent: "test",
    })
    .execute();
}

async function keyRow(server: AuthTestServer, id: string): Promise<Record<string, unknown>> {
  const row = await tablesOf(server)
    .sessions.selectFrom("svc_api_keys")
    .selectAll()
    .where("id", "=", id)
    .executeTakeFirst();
  if (row === undefined) throw new Error(`no svc_api_keys row ${id}`);
  return row;
}

async function createKey(
  server: AuthTestServer,
  token: string,
  body: Record<string, unknown> = { name: "test key" },
): Promise<KeyBody> {
  const created = await readJSON<KeyBody>(post(server, "/api/auth/api-keys", body, { token }));
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  return created.body;
}

async function listKeys(server: AuthTestServer, token: string): Promise<KeyRecord[]> {
  const listed = await readJSON<KeyRecord[]>(
    request(server, "GET", "/api/auth/api-keys", { token }),
  );
  expect(listed.status, JSON.stringify(listed.body)).toBe(200);
  return listed.body;
}

async function mintJWT(server: AuthTestServer, token: string) {
  const minted = await readJSON<{ token: string; expires_at: number }>(
    post(server, "/api/auth/jwt", undefined, { token }),
  );
  expect(minted.status, JSON.stringify(minted.body)).toBe(200);
  return minted.body;
}

async function guestToken(server: AuthTestServer): Promise<string> {
  const { body } = await readJSON<{ token: string }>(post(server, "/api/auth/guest"));
  return body.token;
}

function me(server: AuthTestServer, token: string) {
  return request(server, "GET", "/api/auth/me", { token });
}

async function todosOf(server: AuthTestServer, ownerId: string): Promise<{ id: string }[]> {
  const where = encodeURIComponent(JSON.stringify({ ownerId }));
  const response = await adminRequest(server, "GET", `/api/entities/Todo?where=${where}`);
  expect(response.status).toBe(200);
  return (await response.json()) as { id: string }[];
}

async function adminAudit(server: AuthTestServer, query: string): Promise<AuditPage> {
  const response = await readJSON<AuditPage>(
    adminRequest(server, "GET", `/api/auth/audit?${query}`),
  );
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return response.body;
}

function b64(value: unknown): string {
  return Buffer.from(JSON.stringify(value)).toString("base64url");
}

function decodeSegment(segment: string | undefined): unknown {
  return JSON.parse(Buffer.from(segment ?? "", "base64url").toString("utf8"));
}

/** A JWT built by hand: `header.payload` signed with HMAC (`sha256` or `sha512`) over `secret`. */
function handMadeJWT(
  header: unknown,
  payload: unknown,
  options: { secret?: string; hash?: "sha256" | "sha512" } = {},
): string {
  const input = `${b64(header)}.${b64(payload)}`;
  const signature = createHmac(options.hash ?? "sha256", options.secret ?? JWT_SECRET)
    .update(input)
    .digest("base64url");
  return `${input}.${signature}`;
}

/** A dev-mode server on its own fresh database, disposed with it. */
function isolatedServer(
  database: TestDatabase,
  env: Record<string, string>,
  clock?: TestClock,
): Promise<AuthTestServer> {
  return startOnFreshDatabase(database, { ...DEV, ...env }, clock);
}

describe.each(testDatabases())("credentials over HTTP on $name", (database) => {
  let server: AuthTestServer;
  let clock: TestClock;
  const nextEmail = emailSequence(`credentials-${database.name}`);
  const signIn = (): Promise<SignInBody> => signInWithMagicCode(server, nextEmail());

  beforeAll(async () => {
    clock = createClock();
    server = await isolatedServer(database, JWT_ENV, clock);
  });
  afterAll(() => server?.[Symbol.asyncDispose]());

  describe("API keys", () => {
    it("create answers the key once, with the exact shape and formats", async () => {
      const user = await signIn();
      const response = await readJSON<KeyBody>(
        post(server, "/api/auth/api-keys", { name: " deploy bot " }, { token: user.token }),
      );
      expect(response.status).toBe(200);
      const created = response.body;
      expect(Object.keys(created).sort()).toEqual([...RECORD_KEYS, "key"].sort());
      expect(created.key).toMatch(KEY);
      expect(created.id).toMatch(KEY_ID);
      expect(created.prefix).toMatch(PREFIX);
      expect(created.prefix).toBe(created.key.slice(0, 16));
      expect(created.key.startsWith(`pk.${created.id}.`)).toBe(true);
      expect(created).toMatchObject({
        name: "deploy bot",
        scopes: null,
        expires_at: null,
        last_used_at: null,
        created_at: nowSecs(clock),
      });
    });

    it("list never holds the key or a hash; the table holds no plaintext secret", async () => {
      const user = await signIn();
      const created = await createKey(server, user.token, { name: "listed", scopes: "a,b" });
      const listed = await listKeys(server, user.token);
      expect(listed).toHaveLength(1);
      expect(Object.keys(listed[0] ?? {}).sort()).toEqual(RECORD_KEYS);
      const { key: _key, ...record } = created;
      expect(listed[0]).toEqual(record);

      const row = await keyRow(server, created.id);
      const secret = secretOf(created.key);
      expect(row.secret_hash).toMatch(/^[0-9a-f]{64}$/);
      expect(row.secret_hash).not.toBe(sha256Hex(secret));
      expect(row.secret_hash).not.toBe(sha256Hex(created.key));
      expect(row).toMatchObject({ id: created.id, user_id: user.user_id, prefix: created.prefix });
      for (const value of Object.values(row)) expect(String(value)).not.toContain(secret);
      const text = JSON.stringify(listed);
      for (const hidden of [created.key, secret, String(row.secret_hash), "secret_hash"]) {
        expect(text).not.toContain(hidden);
      }
    });

    it("a key calls functions as its owner and shows via api-key on /api/auth/me", async () => {
      const user = await signIn();
      const { key } = await createKey(server, user.token);
      const title = `by key ${database.name}`;
      const created = await readJSON<{ id: string }>(
        post(server, "/api/fn/createTodo", { title }, { token: key }),
      );
      expect(created.status, JSON.stringify(created.body)).toBe(200);
      const listed = await readJSON<{ rows: { id: string; title: string; ownerId: string }[] }>(
        post(server, "/api/fn/listTodos", {}, { token: key }),
      );
      expect(listed.status).toBe(200);
      expect(listed.body.rows).toEqual([
        expect.objectContaining({ id: created.body.id, title, ownerId: user.user_id }),
      ]);
      // The session sees the same row: it is the owner's.
      const bySession = await readJSON<{ rows: { id: string }[] }>(
        post(server, "/api/fn/listTodos", {}, { token: user.token }),
      );
      expect(bySession.body.rows.map((row) => row.id)).toEqual([created.body.id]);
      const who = await readJSON<MeBody>(me(server, key));
      expect(who).toMatchObject({ status: 200 });
      expect(who.body).toEqual({
        user_id: user.user_id,
        via: "api-key",
        is_guest: false,
        session_id: null,
        user: expect.objectContaining({ id: user.user_id }),
      });
    });

    it("revoked: the very next request is 401 INVALID_API_KEY", async () => {
      const user = await signIn();
      const doomed = await createKey(server, user.token, { name: "doomed" });
      const kept = await createKey(server, user.token, { name: "kept" });
      expect((await me(server, doomed.key)).status).toBe(200);
      const revoked = await readJSON(
        request(server, "DELETE", `/api/auth/api-keys/${doomed.id}`, { token: user.token }),
      );
      expect(revoked).toMatchObject({ status: 200, body: { revoked: true } });
      expect(await errorOf(me(server, doomed.key))).toMatchObject({
        status: 401,
        code: "INVALID_API_KEY",
      });
      expect(
        await errorOf(post(server, "/api/fn/createTodo", { title: "x" }, { token: doomed.key })),
      ).toMatchObject({ status: 401, code: "INVALID_API_KEY" });
      expect((await me(server, kept.key)).status).toBe(200);
      expect((await listKeys(server, user.token)).map((record) => record.id)).toEqual([kept.id]);
    });

    it("another user's or an unknown key id is 404 NOT_FOUND and the key keeps working", async () => {
      const owner = await signIn();
      const other = await signIn();
      const created = await createKey(server, owner.token);
      for (const id of [created.id, `key_${"0".repeat(24)}`, "nope"]) {
        expect(
          await errorOf(
            request(server, "DELETE", `/api/auth/api-keys/${id}`, { token: other.token }),
          ),
        ).toMatchObject({ status: 404, code: "NOT_FOUND" });
      }
      expect((await me(server, created.key)).status).toBe(200);
      expect(await listKeys(server, other.token)).toEqual([]);
    });

    it("expiry: works before expires_at, 401 INVALID_API_KEY at and after it", async () => {
      const user = await signIn();
      const expiresAt = nowSecs(clock) + 120;
      const created = await createKey(server, user.token, { name: "short", expires_at: expiresAt });
      expect(created.expires_at).toBe(expiresAt);
      clock.advance(119_500);
      expect((await me(server, created.key)).status).toBe(200);
      clock.advance(500);
      expect(nowSecs(clock)).toBe(expiresAt);
      expect(await errorOf(me(server, created.key))).toMatchObject({
        status: 401,
        code: "INVALID_API_KEY",
      });
      clock.advance(1_000);
      expect(await errorOf(me(server, created.key))).toMatchObject({
        status: 401,
        code: "INVALID_API_KEY",
      });
    });

    it.each([
      ["the bare prefix", "pk."],
      ["an id one short", `pk.key_${"a".repeat(23)}.${"A".repeat(43)}`],
      ["an id one long", `pk.key_${"a".repeat(25)}.${"A".repeat(43)}`],
      ["bad id characters", `pk.key_${"A".repeat(24)}.${"A".repeat(43)}`],
      ["a bad secret character", `pk.key_${"a".repeat(24)}.${"A".repeat(42)}*`],
      ["a missing secret", `pk.key_${"a".repeat(24)}`],
      ["an empty secret", `pk.key_${"a".repeat(24)}.`],
      ["an extra dot", `pk.key_${"a".repeat(24)}.${"A".repeat(43)}.x`],
      ["a well-formed unknown key", `pk.key_${"a".repeat(24)}.${"A".repeat(43)}`],
    ])("a pk. bearer with %s is 401 INVALID_API_KEY, never INVALID_TOKEN", async (_what, token) => {
      expect(await errorOf(me(server, token))).toMatchObject({
        status: 401,
        code: "INVALID_API_KEY",
      });
      expect(await errorOf(post(server, "/api/fn/listTodos", {}, { token }))).toMatchObject({
        status: 401,
        code: "INVALID_API_KEY",
      });
    });

    it("last_used_at: null at creation, then each use's time in the next list, never backwards", async () => {
      const user = await signIn();
      const created = await createKey(server, user.token, { name: "used" });
      expect((await listKeys(server, user.token))[0]?.last_used_at).toBeNull();
      const seen: (number | null | undefined)[] = [];
      const expected: number[] = [];
      for (const step of [3_000, 1_000, 45_000]) {
        clock.advance(step);
        expect((await me(server, created.key)).status).toBe(200);
        expected.push(nowSecs(clock));
        seen.push((await listKeys(server, user.token))[0]?.last_used_at);
      }
      expect(seen).toEqual(expected);
      expect(Number((await keyRow(server, created.id)).last_used_at)).toBe(expected.at(-1));
    });

    it("scopes are stored and returned verbatim and never enforced", async () => {
      const user = await signIn();
      const scopes = " todos:read ,billing:none;; ";
      const created = await createKey(server, user.token, { name: "scoped", scopes });
      expect(created.scopes).toBe(scopes);
      expect((await listKeys(server, user.token))[0]?.scopes).toBe(scopes);
      expect((await keyRow(server, created.id)).scopes).toBe(scopes);
      const write = await readJSON(
        post(server, "/api/fn/createTodo", { title: "despite scopes" }, { token: created.key }),
      );
      expect(write.status).toBe(200);
    });

    it.each([
      ["a missing name", {}, "INVALID_KEY_NAME"],
      ["an empty name", { name: "" }, "INVALID_KEY_NAME"],
      ["a blank name", { name: "  " }, "INVALID_KEY_NAME"],
      ["a 101-character name", { name: "n".repeat(101) }, "INVALID_KEY_NAME"],
      ["a number as scopes", { name: "k", scopes: 1 }, "INVALID_SCOPES"],
      ["1001-character scopes", { name: "k", scopes: "s".repeat(1001) }, "INVALID_SCOPES"],
      ["a past expires_at", { name: "k", expires_at: 1_000 }, "INVALID_EXPIRY"],
      ["expires_at now", { name: "k", expires_at: "now" }, "INVALID_EXPIRY"],
      ["a fractional expires_at", { name: "k", expires_at: 4_102_444_800.5 }, "INVALID_EXPIRY"],
      ["a string expires_at", { name: "k", expires_at: "4102444800" }, "INVALID_EXPIRY"],
    ] as const)("%s is 400 %s", async (_what, body, code) => {
      const user = await signIn();
      const payload =
        "expires_at" in body && body.expires_at === "now"
          ? { ...body, expires_at: nowSecs(clock) }
          : body;
      expect(
        await errorOf(post(server, "/api/auth/api-keys", payload, { token: user.token })),
      ).toMatchObject({ status: 400, code });
      expect(await listKeys(server, user.token)).toEqual([]);
    });

    it("accepts a 100-character name and 1000-character scopes", async () => {
      const user = await signIn();
      const created = await createKey(server, user.token, {
        name: "n".repeat(100),
        scopes: "s".repeat(1000),
        expires_at: nowSecs(clock) + 1,
      });
      expect(created).toMatchObject({ name: "n".repeat(100), scopes: "s".repeat(1000) });
    });
  });

  describe("endpoints that need a real session", () => {
    const callers: Record<string, string> = {};
    beforeAll(async () => {
      const user = await signIn();
      callers.key = (await createKey(server, user.token, { name: "caller" })).key;
      callers.guest = await guestToken(server);
      callers.jwt = (await mintJWT(server, user.token)).token;
      callers.admin = server.adminToken;
      callers.userId = user.user_id;
      callers.session = user.token;
    });

    const endpoints: readonly [string, string, unknown][] = [
      ["POST", "/api/auth/api-keys", { name: "x" }],
      ["GET", "/api/auth/api-keys", undefined],
      ["DELETE", `/api/auth/api-keys/key_${"0".repeat(24)}`, undefined],
      ["POST", "/api/auth/jwt", undefined],
      ["DELETE", "/api/auth/account", undefined],
    ];
    const cases = endpoints.flatMap(([method, path, body]) =>
      [
        { caller: "key", status: 403, code: "API_KEY_AUTH_FORBIDDEN" },
        { caller: "guest", status: 403, code: "GUEST_NOT_ALLOWED" },
        { caller: "jwt", status: 403, code: "SESSION_REQUIRED" },
        { caller: "none", status: 401, code: "AUTH_REQUIRED" },
        { caller: "admin", status: 401, code: "AUTH_REQUIRED" },
      ].map((expected) => ({ method, path, body, ...expected })),
    );

    it.each(cases)(
      "$method $path by $caller -> $status $code",
      async ({ method, path, body, caller, status, code }) => {
        const token = caller === "none" ? undefined : callers[caller];
        const response = request(server, method, path, {
          ...(token !== undefined && { token }),
          ...(body !== undefined && { body }),
        });
        expect(await errorOf(response)).toMatchObject({ status, code });
      },
    );

    // Regression (packages/auth-core/src/flows/email-verification.ts, sessionUser,
    // line 11): email verification needs a session caller (via session or
    // guest, /tmp/auth-api.md), but the check only refuses `via` null and
    // "admin", so an API key or a JWT can send and redeem verification codes.
    it.each(["key", "jwt"])(
      "email verification by a %s caller is 401 UNAUTHORIZED and sends nothing",
      async (caller) => {
        const token = callers[caller] ?? "";
        expect(
          await errorOf(post(server, "/api/auth/email/send-verification", {}, { token })),
        ).toMatchObject({ status: 401, code: "UNAUTHORIZED" });
        expect(
          await errorOf(post(server, "/api/auth/email/verify", { code: "123456" }, { token })),
        ).toMatchObject({ status: 401, code: "UNAUTHORIZED" });
      },
    );

    it("left the account, its key and its session alone", async () => {
      expect((await me(server, callers.session ?? "")).status).toBe(200);
      expect((await me(server, callers.key ?? "")).status).toBe(200);
      expect(await listKeys(server, callers.session ?? "")).toHaveLength(1);
    });
  });

  describe("JWT exchange", () => {
    it("mints {token, expires_at} that lives SVC_JWT_LIFETIME_SECS (3600) with the session's claims", async () => {
      const user = await signIn();
      const response = await readJSON<{ token: string; expires_at: number }>(
        post(server, "/api/auth/jwt", undefined, { token: user.token }),
      );
      expect(response.status).toBe(200);
      expect(Object.keys(response.body).sort()).toEqual(["expires_at", "token"]);
      const now = nowSecs(clock);
      expect(response.body.expires_at).toBe(now + 3600);
      const [header, payload, signature] = response.body.token.split(".");
      expect(decodeSegment(header)).toEqual({ alg: "HS256", typ: "JWT" });
      expect(decodeSegment(payload)).toEqual({
        iss: "svc",
        sub: user.user_id,
        iat: now,
        exp: now + 3600,
        roles: [],
      });
      expect(signature).toMatch(/^[A-Za-z0-9_-]{43}$/);
    });

    it("calls functions as the user and shows via jwt", async () => {
      const user = await signIn();
      const { token } = await mintJWT(server, user.token);
      const created = await readJSON<{ id: string }>(
        post(server, "/api/fn/createTodo", { title: "by jwt" }, { token }),
      );
      expect(created.status, JSON.stringify(created.body)).toBe(200);
      expect(await todosOf(server, user.user_id)).toEqual([
        expect.objectContaining({ id: created.body.id, ownerId: user.user_id }),
      ]);
      const who = await readJSON<MeBody>(me(server, token));
      expect(who.body).toMatchObject({
        user_id: user.user_id,
        via: "jwt",
        is_guest: false,
        session_id: null,
      });
    });

    it("an expired JWT is 401 INVALID_JWT", async () => {
      const user = await signIn();
      const { token, expires_at } = await mintJWT(server, user.token);
      clock.advance(3_599_000);
      expect((await me(server, token)).status).toBe(200);
      clock.advance(1_000);
      expect(nowSecs(clock)).toBe(expires_at);
      expect(await errorOf(me(server, token))).toMatchObject({ status: 401, code: "INVALID_JWT" });
    });

    it("accepts a hand-built HS256 token signed with the secret (the forgeries below are fair)", async () => {
      const user = await signIn();
      const now = nowSecs(clock);
      const token = handMadeJWT(
        { alg: "HS256", typ: "JWT" },
        { iss: "svc", sub: user.user_id, iat: now, exp: now + 60, roles: [] },
      );
      expect((await readJSON<MeBody>(me(server, token))).body).toMatchObject({
        user_id: user.user_id,
        via: "jwt",
      });
    });

    it.each([
      [
        "alg none with an empty signature",
        (claims: Record<string, unknown>) => `${b64({ alg: "none", typ: "JWT" })}.${b64(claims)}.`,
      ],
      [
        "an RS256 header signed with HMAC over the secret",
        (claims: Record<string, unknown>) => handMadeJWT({ alg: "RS256", typ: "JWT" }, claims),
      ],
      [
        "an HS512 token signed with the secret",
        (claims: Record<string, unknown>) =>
          handMadeJWT({ alg: "HS512", typ: "JWT" }, claims, { hash: "sha512" }),
      ],
      [
        'a tampered payload claiming roles ["admin"]',
        (claims: Record<string, unknown>) => {
          const [header, , signature] = handMadeJWT({ alg: "HS256", typ: "JWT" }, claims).split(
            ".",
          );
          return `${header}.${b64({ ...claims, roles: ["admin"] })}.${signature}`;
        },
      ],
      [
        "another issuer signed with the right secret",
        (claims: Record<string, unknown>) =>
          handMadeJWT({ alg: "HS256", typ: "JWT" }, { ...claims, iss: "someone-else" }),
      ],
      [
        "the right claims signed with another secret",
        (claims: Record<string, unknown>) =>
          handMadeJWT({ alg: "HS256", typ: "JWT" }, claims, { secret: `${JWT_SECRET}!` }),
      ],
      [
        "an exp in the past signed with the secret",
        (claims: Record<string, unknown>) =>
          handMadeJWT(
            { alg: "HS256", typ: "JWT" },
            { ...claims, iat: Number(claims.iat) - 7200, exp: Number(claims.iat) - 3600 },
          ),
      ],
    ])("%s is 401 INVALID_JWT", async (_what, forge) => {
      const user = await signIn();
      const now = nowSecs(clock);
      const token = forge({ iss: "svc", sub: user.user_id, iat: now, exp: now + 600, roles: [] });
      expect(await errorOf(me(server, token))).toMatchObject({ status: 401, code: "INVALID_JWT" });
      expect(
        await errorOf(post(server, "/api/fn/createTodo", { title: "forged" }, { token })),
      ).toMatchObject({ status: 401, code: "INVALID_JWT" });
    });

    it("SVC_JWT_LIFETIME_SECS=120 mints tokens that live 120 s", async () => {
      await using other = await isolatedServer(database, {
        ...JWT_ENV,
        SVC_JWT_LIFETIME_SECS: "120",
      });
      const user = await signInWithMagicCode(other, "lifetime@example.com");
      const minted = await mintJWT(other, user.token);
      const now = nowSecs(other.clock);
      expect(minted.expires_at).toBe(now + 120);
      expect(decodeSegment(minted.token.split(".")[1])).toMatchObject({ iat: now, exp: now + 120 });
    });

    it("without SVC_JWT_SECRET: mint is 501 JWT_NOT_CONFIGURED, a JWT bearer 401 INVALID_TOKEN", async () => {
      await using other = await isolatedServer(database, {});
      const user = await signInWithMagicCode(other, "nojwt@example.com");
      expect(
        await errorOf(post(other, "/api/auth/jwt", undefined, { token: user.token })),
      ).toMatchObject({ status: 501, code: "JWT_NOT_CONFIGURED" });
      const now = nowSecs(other.clock);
      const token = handMadeJWT(
        { alg: "HS256", typ: "JWT" },
        { iss: "svc", sub: user.user_id, iat: now, exp: now + 60, roles: [] },
      );
      expect(await errorOf(me(other, token))).toMatchObject({ status: 401, code: "INVALID_TOKEN" });
    });

    it("a secret without SVC_JWT_ISSUER boots, but mint and every JWT are 401 JWT_MISCONFIGURED", async () => {
      await using other = await isolatedServer(database, { SVC_JWT_SECRET: JWT_SECRET });
      expect(other.warnings.join("\n")).toContain("SVC_JWT_ISSUER");
      const user = await signInWithMagicCode(other, "misconfigured@example.com");
      expect((await me(other, user.token)).status).toBe(200);
      expect(
        await errorOf(post(other, "/api/auth/jwt", undefined, { token: user.token })),
      ).toMatchObject({ status: 401, code: "JWT_MISCONFIGURED" });
      const now = nowSecs(other.clock);
      for (const token of [
        handMadeJWT(
          { alg: "HS256", typ: "JWT" },
          { iss: "svc", sub: user.user_id, iat: now, exp: now + 60, roles: [] },
        ),
        "a.b.c",
      ]) {
        expect(await errorOf(me(other, token))).toMatchObject({
          status: 401,
          code: "JWT_MISCONFIGURED",
        });
      }
    });
  });

  describe("account deletion", () => {
    /** Two sessions, two keys, one linked account, one trusted device, one todo. */
    async function account() {
      const email = nextEmail();
      const first = await signInWithMagicCode(server, email);
      clock.advance(61_000);
      const second = await signInWithMagicCode(server, email);
      expect(second.user_id).toBe(first.user_id);
      const userId = first.user_id;
      const keys = [
        (await createKey(server, first.token, { name: "one" })).key,
        (await createKey(server, first.token, { name: "two" })).key,
      ];
      await linkAccount(server, userId, email);
      await trustDevice(server, userId);
      const todo = await readJSON<{ id: string }>(
        post(server, "/api/fn/createTodo", { title: "mine" }, { token: first.token }),
      );
      expect(todo.status).toBe(200);
      return { email, userId, tokens: [first.token, second.token], keys, todoId: todo.body.id };
    }

    async function leftRows(userId: string) {
      const tables = tablesOf(server);
      const count = async (
        db: typeof tables.sessions,
        table: string,
        column = "user_id",
      ): Promise<number> =>
        (await db.selectFrom(table).select(column).where("user_id", "=", userId).execute()).length;
      return {
        svc_sessions: await count(tables.sessions, "svc_sessions", "id"),
        svc_api_keys: await count(tables.sessions, "svc_api_keys", "id"),
        svc_linked_accounts: await count(tables.accounts, "svc_linked_accounts", "id"),
        svc_trusted_device: await count(tables.sessions, "svc_trusted_device", "id"),
        svc_passwords: await count(tables.accounts, "svc_passwords"),
        User: (await server.store.systemReader().get("User", userId)) === null ? 0 : 1,
      };
    }

    it("answers exact counts, clears the cookie and leaves no auth row or User row", async () => {
      const gone = await account();
      const bystander = await account();
      // The cookie path: the answer must clear it.
      const response = await request(server, "DELETE", "/api/auth/account", {
        cookie: gone.tokens[1],
        headers: { origin: TRUSTED_ORIGIN },
      });
      const { status, body } = await readJSON(response);
      expect(status, JSON.stringify(body)).toBe(200);
      expect(body).toEqual({
        deleted: true,
        revoked_sessions: 2,
        revoked_api_keys: 2,
        unlinked_accounts: 1,
      });
      const cookie = sessionSetCookie(response) ?? "";
      expect(cookie).toMatch(/^svc_session=;/);
      expect(cookie).toMatch(/Max-Age=0|Expires=Thu, 01 Jan 1970/);

      expect(await leftRows(gone.userId)).toEqual({
        svc_sessions: 0,
        svc_api_keys: 0,
        svc_linked_accounts: 0,
        svc_trusted_device: 0,
        svc_passwords: 0,
        User: 0,
      });
      expect(await leftRows(bystander.userId)).toMatchObject({
        svc_sessions: 2,
        svc_api_keys: 2,
        svc_linked_accounts: 1,
        svc_trusted_device: 1,
        User: 1,
      });
    });

    it("refuses every old token and key at once and keeps the AccountDelete event", async () => {
      const gone = await account();
      // Each credential is used first, so any cache holds it.
      for (const token of [...gone.tokens, ...gone.keys]) {
        expect((await me(server, token)).status).toBe(200);
      }
      clock.advance(1_000);
      const deleted = await readJSON(
        request(server, "DELETE", "/api/auth/account", { token: gone.tokens[0] }),
      );
      expect(deleted.status).toBe(200);
      for (const token of gone.tokens) {
        expect(await errorOf(me(server, token))).toMatchObject({
          status: 401,
          code: "INVALID_TOKEN",
        });
        // As a cookie it is simply stale: anonymous.
        const byCookie = await errorOf(request(server, "GET", "/api/auth/me", { cookie: token }));
        expect(byCookie).toMatchObject({ status: 401, code: "AUTH_REQUIRED" });
      }
      for (const key of gone.keys) {
        expect(await errorOf(me(server, key))).toMatchObject({
          status: 401,
          code: "INVALID_API_KEY",
        });
      }
      const audit = await adminAudit(server, `user_id=${gone.userId}&kind=AccountDelete`);
      expect(audit.events).toEqual([
        {
          id: expect.any(String),
          user_id: gone.userId,
          kind: "AccountDelete",
          at: new Date(clock.now()).toISOString(),
          data: { sessions: 2, api_keys: 2, linked_accounts: 1, trusted_devices: 1 },
          ip: expect.stringMatching(/127\.0\.0\.1$/),
        },
      ]);
    });

    it("does not delete the application rows the user owns", async () => {
      const gone = await account();
      expect(
        (await request(server, "DELETE", "/api/auth/account", { token: gone.tokens[0] })).status,
      ).toBe(200);
      expect((await todosOf(server, gone.userId)).map((row) => row.id)).toEqual([gone.todoId]);
    });
  });

  describe("audit and export", () => {
    it("lists the user's events newest first, pages with cursors, and hides other users'", async () => {
      const email = nextEmail();
      const step = () => clock.advance(1_000);
      const registered = await registerPassword(server, email);
      step();
      // Verified from the sign-up's own session before the code sign-in: a
      // code sign-in into an unverified password account would claim it.
      const sent = await readJSON<{ dev_code: string }>(
        post(server, "/api/auth/email/send-verification", {}, { token: registered.token }),
      );
      expect(sent.status).toBe(200);
      const verified = await readJSON(
        post(
          server,
          "/api/auth/email/verify",
          { code: sent.body.dev_code },
          { token: registered.token },
        ),
      );
      expect(verified.status).toBe(200);
      step();
      const signedIn = await signInWithMagicCode(server, email);
      const token = signedIn.token;
      step();
      const key = await createKey(server, token, { name: "audited" });
      step();
      await request(server, "DELETE", `/api/auth/api-keys/${key.id}`, { token });
      step();
      const minted = await mintJWT(server, token);
      step();
      expect(
        (await request(server, "DELETE", "/api/auth/session", { token: registered.token })).status,
      ).toBe(200);
      step();
      // Someone else's events in between.
      const stranger = await signIn();
      await guestToken(server);

      const full = await readJSON<AuditPage>(request(server, "GET", "/api/auth/audit", { token }));
      expect(full.status).toBe(200);
      expect(full.body.next_cursor).toBeNull();
      const ip = expect.stringMatching(/127\.0\.0\.1$/);
      expect(full.body.events).toEqual([
        expect.objectContaining({
          kind: "SignOut",
          data: { session_id: sha256Hex(registered.token) },
        }),
        expect.objectContaining({
          kind: "JwtMint",
          data: { expires_at: minted.expires_at },
          ip,
        }),
        expect.objectContaining({ kind: "ApiKeyRevoke", data: { key_id: key.id }, ip }),
        expect.objectContaining({
          kind: "ApiKeyCreate",
          data: { key_id: key.id, name: "audited" },
          ip,
        }),
        expect.objectContaining({
          kind: "SignIn",
          data: { method: "magic-code", session_id: sha256Hex(token) },
          ip,
        }),
        expect.objectContaining({ kind: "EmailVerify", data: { email } }),
        expect.objectContaining({
          kind: "SignUp",
          data: { method: "sign-up", session_id: sha256Hex(registered.token) },
          ip,
        }),
      ]);
      expect(full.body.events.every((event) => event.user_id === registered.user_id)).toBe(true);

      // limit=2: four pages, every event once, in the same order.
      const paged: AuditEventBody[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const query: string = `limit=2${cursor === null ? "" : `&cursor=${encodeURIComponent(cursor)}`}`;
        const page = await readJSON<AuditPage>(
          request(server, "GET", `/api/auth/audit?${query}`, { token }),
        );
        expect(page.status).toBe(200);
        expect(page.body.events.length).toBeLessThanOrEqual(2);
        paged.push(...page.body.events);
        cursor = page.body.next_cursor;
        pages += 1;
      } while (cursor !== null && pages < 20);
      expect(pages).toBe(4);
      expect(paged).toEqual(full.body.events);

      // Asking for someone else's events still shows one's own.
      const asking = await readJSON<AuditPage>(
        request(server, "GET", `/api/auth/audit?user_id=${stranger.user_id}`, { token }),
      );
      expect(asking.body.events).toEqual(full.body.events);

      // The admin sees everyone's, and filters.
      const everyone = await adminAudit(server, "limit=200");
      const users = new Set(everyone.events.map((event) => event.user_id));
      expect(users.has(registered.user_id)).toBe(true);
      expect(users.has(stranger.user_id)).toBe(true);
      expect((await adminAudit(server, `user_id=${registered.user_id}`)).events).toEqual(
        full.body.events,
      );
      expect(
        (await adminAudit(server, `user_id=${registered.user_id}&kind=SignIn`)).events.map(
          (event) => event.kind,
        ),
      ).toEqual(["SignIn"]);
      const guests = await adminAudit(server, "kind=GuestSession&limit=200");
      expect(guests.events.length).toBeGreaterThan(0);
      expect(guests.events.every((event) => event.kind === "GuestSession")).toBe(true);
    });

    it.each([
      "limit=0",
      "limit=201",
      "limit=x",
      "limit=",
      "limit=1&limit=2",
      "cursor=nope",
      `cursor=1_${"z".repeat(32)}`,
    ])("?%s is 400 INVALID_QUERY for a user and the admin", async (query) => {
      const user = await signIn();
      expect(
        await errorOf(request(server, "GET", `/api/auth/audit?${query}`, { token: user.token })),
      ).toMatchObject({ status: 400, code: "INVALID_QUERY" });
      expect(await errorOf(adminRequest(server, "GET", `/api/auth/audit?${query}`))).toMatchObject({
        status: 400,
        code: "INVALID_QUERY",
      });
    });

    it("an anonymous audit read is 401 AUTH_REQUIRED", async () => {
      expect(await errorOf(request(server, "GET", "/api/auth/audit"))).toMatchObject({
        status: 401,
        code: "AUTH_REQUIRED",
      });
    });

    it("the admin export holds the user's data and none of their secrets", async () => {
      const email = nextEmail();
      const registered = await registerPassword(server, email);
      clock.advance(1_000);
      // A second session by password: a code sign-in would claim the
      // unverified account and end the first one.
      const login = await readJSON<SignInBody>(
        post(server, "/api/auth/password/login", { email, password: "correct horse battery" }),
      );
      expect(login.status).toBe(200);
      const signedIn = login.body;
      const userId = registered.user_id;
      clock.advance(1_000);
      const key = await createKey(server, signedIn.token, { name: "exported" });
      expect((await me(server, key.key)).status).toBe(200);
      await linkAccount(server, userId, email, {
        provider: "google",
        provider_user_id: `g-${userId}`,
        created_at: 1_800_000_000,
      });
      const todo = await readJSON<{ id: string }>(
        post(server, "/api/fn/createTodo", { title: "exported todo" }, { token: key.key }),
      );
      const other = await signIn();
      await post(server, "/api/fn/createTodo", { title: "not exported" }, { token: other.token });

      const response = await readJSON<Record<string, unknown>>(
        adminRequest(server, "GET", `/api/admin/users/${userId}/export`),
      );
      expect(response.status, JSON.stringify(response.body)).toBe(200);
      const exported = response.body;
      expect(exported).toMatchObject({
        user_id: userId,
        user: expect.objectContaining({ id: userId, email }),
        linked_accounts: [
          { provider: "google", provider_user_id: `g-${userId}`, email, created_at: 1_800_000_000 },
        ],
        entities: { Todo: [expect.objectContaining({ id: todo.body.id, ownerId: userId })] },
      });
      const sessions = exported.sessions as { id: string }[];
      expect(sessions.map((session) => session.id).sort()).toEqual(
        [sha256Hex(registered.token), sha256Hex(signedIn.token)].sort(),
      );
      for (const session of sessions) {
        expect(Object.keys(session).sort()).toEqual(
          ["created_at", "expires_at", "guest", "id", "ip", "user_agent"].sort(),
        );
      }
      const { key: _key, ...record } = key;
      expect(exported.api_keys).toEqual([{ ...record, last_used_at: expect.any(Number) }]);
      const kinds = (exported.audit as AuditEventBody[]).map((event) => event.kind);
      expect(kinds).toEqual(["ApiKeyCreate", "SignIn", "SignUp"]);

      const text = JSON.stringify(exported);
      const password = await tablesOf(server)
        .accounts.selectFrom("svc_passwords")
        .select("hash")
        .where("user_id", "=", userId)
        .executeTakeFirstOrThrow();
      const row = await keyRow(server, key.id);
      for (const secret of [
        registered.token,
        signedIn.token,
        key.key,
        secretOf(key.key),
        String(row.secret_hash),
        String(password.hash),
      ]) {
        expect(secret.length).toBeGreaterThan(30);
        expect(text).not.toContain(secret);
      }
      expect(text).not.toContain("$argon2");
    });

    it("the export is for the admin only: 403 ADMIN_REQUIRED for users, 401 for anonymous, 404 for unknown ids", async () => {
      const user = await signIn();
      const { key } = await createKey(server, user.token);
      const path = `/api/admin/users/${user.user_id}/export`;
      for (const token of [user.token, key, (await mintJWT(server, user.token)).token]) {
        expect(await errorOf(request(server, "GET", path, { token }))).toMatchObject({
          status: 403,
          code: "ADMIN_REQUIRED",
        });
      }
      expect(await errorOf(request(server, "GET", path))).toMatchObject({
        status: 401,
        code: "AUTH_REQUIRED",
      });
      expect(
        await errorOf(adminRequest(server, "GET", `/api/admin/users/${"0".repeat(40)}/export`)),
      ).toMatchObject({ status: 404, code: "NOT_FOUND" });
    });
  });

  it("last_used_at is written on close and seen after a restart", async () => {
    await using db = await createTestDatabase(database);
    using dir = tempDir();
    const env = {
      ...DEV,
      ...databaseEnv(db.target, { sessionsFile: join(dir.path, "sessions.db") }),
    };
    const restartClock = createClock();
    let session: SignInBody;
    let created: KeyBody;
    {
      await using first = await startAuthServer(env, restartClock);
      session = await signInWithMagicCode(first, "restart@example.com");
      created = await createKey(first, session.token, { name: "restarted" });
      restartClock.advance(42_000);
      expect((await me(first, created.key)).status).toBe(200);
    }
    await using second = await startAuthServer(env, restartClock);
    const listed = await listKeys(second, session.token);
    expect(listed.map((record) => [record.id, record.last_used_at])).toEqual([
      [created.id, nowSecs(restartClock)],
    ]);
  });
});

/** An app with a before-delete hook on User and an entity referencing User. */
function writeHookApp(dir: string): string {
  const manifest = {
    manifest_version: 1,
    name: "deletion-hooks",
    version: "0.0.1",
    auth: { trustedOrigins: [TRUSTED_ORIGIN] },
    entities: [
      userEntity(),
      {
        name: "Todo",
        fields: [
          { name: "title", type: "string" },
          { name: "ownerId", type: "string", owner: true },
        ],
      },
      {
        name: "Profile",
        fields: [
          { name: "bio", type: "string" },
          { name: "userId", type: "id", target: "User" },
        ],
      },
    ],
    policies: [
      { name: "self", entity: "User", allowRead: "auth.userId == data.id" },
      {
        name: "own todos",
        entity: "Todo",
        allowRead: "auth.userId == data.ownerId",
        allowInsert: "auth.userId != null",
        allowDelete: "auth.userId == existing.ownerId",
      },
      {
        name: "own profile",
        entity: "Profile",
        allowRead: "auth.userId == data.userId",
        allowInsert: "auth.userId == data.userId",
      },
    ],
    functions: "functions",
  };
  writeFileSync(join(dir, "svc.json"), JSON.stringify(manifest));
  mkdirSync(join(dir, "functions"));
  const files: Record<string, string> = {
    "createTodo.mjs": `export default { type: "mutation", handler: async (ctx, args) => ({ id: (await ctx.db.insert("Todo", { title: args.title })).id }) };\n`,
    "createProfile.mjs": `export default { type: "mutation", handler: async (ctx) => ({ id: (await ctx.db.insert("Profile", { bio: "hi", userId: ctx.auth.userId })).id }) };\n`,
    "whoami.mjs": `export default { type: "query", handler: async (ctx) => ({ userId: ctx.auth.userId, via: ctx.auth.via, roles: ctx.auth.roles, tenantId: ctx.auth.tenantId, isAdmin: ctx.auth.isAdmin }) };\n`,
    // Deletes the user's todos, then refuses users whose email starts with "refuse-".
    "purgeUser.mjs": [
      "export default {",
      '  type: "hook",',
      '  on: { delete: { entity: "User" } },',
      "  handler: async (ctx, { row }) => {",
      '    const page = await ctx.db.query("Todo", { where: { ownerId: row.id } });',
      '    for (const todo of page.rows) await ctx.db.delete("Todo", todo.id);',
      '    if (String(row.email).startsWith("refuse-")) ctx.error("PURGE_REFUSED", "This account cannot be deleted yet.", 409);',
      "  },",
      "};",
      "",
    ].join("\n"),
  };
  for (const [name, source] of Object.entries(files)) {
    writeFileSync(join(dir, "functions", name), source);
  }
  return join(dir, "svc.json");
}

describe.each(testDatabases())(
  "account deletion with a User hook over HTTP on $name",
  (database) => {
    let server: AuthTestServer & { [Symbol.asyncDispose](): Promise<void> };
    let dir: ReturnType<typeof tempDir>;
    let counter = 0;

    beforeAll(async () => {
      dir = tempDir();
      server = await isolatedServer(database, { ...JWT_ENV, SVC_MANIFEST: writeHookApp(dir.path) });
    });
    afterAll(async () => {
      await server?.[Symbol.asyncDispose]();
      dir?.[Symbol.dispose]();
    });

    /** A user (email `<label>-n@example.com`) with two sessions, two keys, a link, a device and two todos. */
    async function account(label: string) {
      counter += 1;
      const email = `${label}-${counter}@example.com`;
      const first = await signInWithMagicCode(server, email);
      server.clock.advance(61_000);
      const second = await signInWithMagicCode(server, email);
      const userId = first.user_id;
      const keys: string[] = [];
      for (const name of ["one", "two"]) {
        keys.push((await createKey(server, first.token, { name })).key);
      }
      await linkAccount(server, userId, email);
      await trustDevice(server, userId);
      const todoIds: string[] = [];
      for (const title of ["a", "b"]) {
        const todo = await readJSON<{ id: string }>(
          post(server, "/api/fn/createTodo", { title }, { token: first.token }),
        );
        expect(todo.status, JSON.stringify(todo.body)).toBe(200);
        todoIds.push(todo.body.id);
      }
      return { email, userId, tokens: [first.token, second.token], keys, todoIds };
    }

    async function expectIntact(user: Awaited<ReturnType<typeof account>>): Promise<void> {
      for (const token of [...user.tokens, ...user.keys]) {
        expect((await me(server, token)).status).toBe(200);
      }
      expect(await listKeys(server, user.tokens[0] ?? "")).toHaveLength(2);
      const { db } = server.auth.database;
      const links = await db
        .selectFrom("svc_linked_accounts")
        .select("id")
        .where("user_id", "=", user.userId)
        .execute();
      expect(links).toHaveLength(1);
      expect(await server.store.systemReader().get("User", user.userId)).not.toBeNull();
      expect((await todosOf(server, user.userId)).map((row) => row.id).sort()).toEqual(
        [...user.todoIds].sort(),
      );
      expect(
        (await adminAudit(server, `user_id=${user.userId}&kind=AccountDelete`)).events,
      ).toEqual([]);
    }

    it("an API key and a JWT act with no roles", async () => {
      const user = await account("roles");
      const jwt = await mintJWT(server, user.tokens[0] ?? "");
      for (const [token, via] of [
        [user.keys[0] ?? "", "api-key"],
        [jwt.token, "jwt"],
      ] as const) {
        const who = await readJSON(post(server, "/api/fn/whoami", {}, { token }));
        expect(who).toMatchObject({ status: 200 });
        expect(who.body).toEqual({
          userId: user.userId,
          via,
          roles: [],
          tenantId: null,
          isAdmin: false,
        });
      }
    });

    it("the hook removes the user's todos in the deletion's transaction", async () => {
      const user = await account("purged");
      const bystander = await account("bystander");
      const deleted = await readJSON(
        request(server, "DELETE", "/api/auth/account", { token: user.tokens[1] }),
      );
      expect(deleted).toMatchObject({
        status: 200,
        body: { deleted: true, revoked_sessions: 2, revoked_api_keys: 2, unlinked_accounts: 1 },
      });
      expect(await todosOf(server, user.userId)).toEqual([]);
      expect((await todosOf(server, bystander.userId)).map((row) => row.id).sort()).toEqual(
        [...bystander.todoIds].sort(),
      );
      expect(await server.store.systemReader().get("User", user.userId)).toBeNull();
    });

    it("a hook that fails rolls everything back and answers its own error", async () => {
      const user = await account("refuse");
      const refused = await errorOf(
        request(server, "DELETE", "/api/auth/account", { token: user.tokens[0] }),
      );
      expect(refused).toMatchObject({ status: 409, code: "PURGE_REFUSED" });
      // No clearing cookie for a deletion that did not happen.
      await expectIntact(user);
    });

    it("a User row another entity references is 400 ROW_REFERENCED and nothing is deleted", async () => {
      const user = await account("referenced");
      const profile = await readJSON(
        post(server, "/api/fn/createProfile", {}, { token: user.tokens[0] }),
      );
      expect(profile.status, JSON.stringify(profile.body)).toBe(200);
      const refused = await request(server, "DELETE", "/api/auth/account", {
        token: user.tokens[0],
      });
      expect(sessionSetCookie(refused)).toBeUndefined();
      expect(await errorOf(refused)).toMatchObject({ status: 400, code: "ROW_REFERENCED" });
      await expectIntact(user);
    });
  },
);
