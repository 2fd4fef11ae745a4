import { randomBytes, randomInt } from "node:crypto";
import { type AuthContext, createAuthContext } from "@svc/schema";
import { CompiledQuery, type Kysely } from "kysely";
import type { CacheStats } from "./cache-stats.js";
import { AuthError } from "./errors.js";
import { digestsEqual, hmacHex } from "./secrets.js";
import type { ApiKeysTable, AuthTables } from "./tables.js";

/** An API key as the API shows it: never the key or its hash. Times in unix seconds. */
export interface ApiKeyRecord {
  readonly id: string;
  readonly name: string;
  readonly prefix: string;
  readonly scopes: string | null;
  readonly expires_at: number | null;
  readonly last_used_at: number | null;
  readonly created_at: number;
}

/** A new key: the record plus the full key, shown this once. */
export type NewApiKey = ApiKeyRecord & { readonly key: string };

const ID_ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789";
const ID_LENGTH = 24;
const KEY_SHAPE = /^pk\.(key_[a-z0-9]{24})\.([A-Za-z0-9_-]{43})$/;
const PREFIX_LENGTH = 16;
/** How often coalesced `last_used_at` values are written. */
const FLUSH_INTERVAL_MS = 30_000;
/** How long a verified key is trusted from memory (revocations elsewhere drop it sooner). */
const CACHE_TTL_MS = 1000;
const CACHE_CAPACITY = 10_000;

function newKeyId(): string {
  let id = "key_";
  for (let i = 0; i < ID_LENGTH; i++) id += ID_ALPHABET[randomInt(ID_ALPHABET.length)];
  return id;
}

function toRecord(row: ApiKeysTable): ApiKeyRecord {
  const number = (value: number | null): number | null => (value === null ? null : Number(value));
  return {
    id: row.id,
    name: row.name,
    prefix: row.prefix,
    scopes: row.scopes,
    expires_at: number(row.expires_at),
    last_used_at: number(row.last_used_at),
    created_at: Number(row.created_at),
  };
}

/** What `POST /api/auth/api-keys` accepts, checked. */
function readCreateBody(
  body: { name?: unknown; scopes?: unknown; expires_at?: unknown },
  nowSecs: number,
): { name: string; scopes: string | null; expiresAt: number | null } {
  const name = typeof body.name === "string" ? body.name.trim() : "";
  if (name === "" || [...name].length > 100) throw new AuthError("INVALID_KEY_NAME");
  if (body.scopes !== undefined && body.scopes !== null) {
    if (typeof body.scopes !== "string" || body.scopes.length > 1000) {
      throw new AuthError("INVALID_SCOPES");
    }
  }
  const expires = body.expires_at;
  if (expires !== undefined && expires !== null) {
    if (typeof expires !== "number" || !Number.isSafeInteger(expires) || expires <= nowSecs) {
      throw new AuthError("INVALID_EXPIRY");
    }
  }
  return {
    name,
    scopes: typeof body.scopes === "string" ? body.scopes : null,
    expiresAt: typeof expires === "number" ? expires : null,
  };
}

/** The API keys of every user: create, list, revoke, resolve a bearer. */
export interface ApiKeys {
  /** Creates a key for `userId`, through `db` (a transaction) when given. */
  create(
    userId: string,
    body: { name?: unknown; scopes?: unknown; expires_at?: unknown },
    db?: Kysely<AuthTables>,
  ): Promise<NewApiKey>;
  /** The user's keys, newest first, with `last_used_at` up to date. */
  list(userId: string): Promise<ApiKeyRecord[]>;
  /** Deletes one of the user's keys; false when the user has no such key. */
  revoke(userId: string, keyId: string): Promise<boolean>;
  /**
   * The caller a `pk.` token stands for: its owner, with no roles. Null for a
   * token that is not an API key; `INVALID_API_KEY` for a malformed,
   * unknown, revoked or expired one.
   */
  resolve(token: string): Promise<AuthContext | null>;
  /** Deletes every key of a user through `db` (a transaction); resolves with how many. */
  deleteForUser(db: Kysely<AuthTables>, userId: string): Promise<number>;
  /** Writes the coalesced `last_used_at` values now. */
  flush(): Promise<void>;
  /** Drops any cached verification of the user's keys (after a deletion commits). */
  forgetUser(userId: string): void;
  /** Drops every cached verification. */
  forgetAll(): void;
  /** The verification cache's counters (lookups of `pk.` tokens only). */
  stats(): CacheStats;
  /** Flushes and stops the periodic flush. */
  close(): Promise<void>;
}

/**
 * Builds the API key store. The key's secret is kept only as an
 * HMAC-SHA256 under `hmacKey` (derived from the deployment secret), compared
 * in constant time. A successful use refreshes `last_used_at` in memory; the
 * values are written together every 30 seconds, before every list and on
 * close, and a write never moves the time backwards.
 */
export function createApiKeys(options: {
  tables: () => Kysely<AuthTables>;
  hmacKey: Buffer;
  now: () => number;
  /** Cache verified keys for a second (revocations elsewhere must call `forgetUser`). */
  cache: boolean;
  /** Receives a failed write of buffered use times (retried at the next flush). Default `console.error`. */
  onFlushError?: (error: unknown) => void;
}): ApiKeys {
  const { tables, hmacKey, now } = options;
  const pending = new Map<string, number>();
  const cache = new Map<
    string,
    { auth: AuthContext; keyId: string; expiresAt: number | null; at: number }
  >();
  const compiled = tables().selectFrom("svc_api_keys").selectAll().where("id", "=", "").compile();
  const nowSecs = (): number => Math.floor(now() / 1000);
  const counts = { hits: 0, misses: 0, invalidations: 0, evictions: 0 };

  const flush = async (): Promise<void> => {
    if (pending.size === 0) return;
    const entries = [...pending];
    pending.clear();
    for (const [id, usedAt] of entries) {
      await tables()
        .updateTable("svc_api_keys")
        .set({ last_used_at: usedAt })
        .where("id", "=", id)
        .where((eb) => eb.or([eb("last_used_at", "is", null), eb("last_used_at", "<", usedAt)]))
        .execute();
    }
  };
  const timer = setInterval(() => {
    flush().catch(
      options.onFlushError ??
        ((error: unknown) => console.error("svc: could not record API key use", error)),
    );
  }, FLUSH_INTERVAL_MS);
  timer.unref();

  const forget = (predicate: (entry: { keyId: string; auth: AuthContext }) => boolean): void => {
    counts.invalidations++;
    for (const [token, entry] of cache) if (predicate(entry)) cache.delete(token);
  };

  return {
    async create(userId, body, db = tables()) {
      const { name, scopes, expiresAt } = readCreateBody(body, nowSecs());
      const id = newKeyId();
      const secret = randomBytes(32).toString("base64url");
      const key = `pk.${id}.${secret}`;
      const row: ApiKeysTable = {
        id,
        user_id: userId,
        name,
        prefix: key.slice(0, PREFIX_LENGTH),
        secret_hash: hmacHex(hmacKey, secret),
        scopes,
        expires_at: expiresAt,
        last_used_at: null,
        created_at: nowSecs(),
      };
      await db.insertInto("svc_api_keys").values(row).execute();
      return { key, ...toRecord(row) };
    },
    async list(userId) {
      await flush();
      const rows = await tables()
        .selectFrom("svc_api_keys")
        .selectAll()
        .where("user_id", "=", userId)
        .orderBy("created_at", "desc")
        .orderBy("id")
        .execute();
      return rows.map(toRecord);
    },
    async revoke(userId, keyId) {
      const result = await tables()
        .deleteFrom("svc_api_keys")
        .where("id", "=", keyId)
        .where("user_id", "=", userId)
        .executeTakeFirst();
      forget((entry) => entry.keyId === keyId);
      pending.delete(keyId);
      return Number(result.numDeletedRows) > 0;
    },
    async resolve(token) {
      if (!token.startsWith("pk.")) return null;
      const time = now();
      const cached = options.cache ? cache.get(token) : undefined;
      if (cached !== undefined && time - cached.at < CACHE_TTL_MS && time >= cached.at) {
        if (cached.expiresAt === null || cached.expiresAt > Math.floor(time / 1000)) {
          pending.set(cached.keyId, Math.floor(time / 1000));
          counts.hits++;
          return cached.auth;
        }
      }
      if (options.cache) counts.misses++;
      const match = KEY_SHAPE.exec(token);
      if (match === null) throw new AuthError("INVALID_API_KEY");
      const [, id = "", secret = ""] = match;
      const { rows } = await tables().executeQuery<ApiKeysTable>(
        CompiledQuery.raw(compiled.sql, [id]),
      );
      const row = rows[0];
      const seconds = Math.floor(time / 1000);
      // The HMAC is computed even for an unknown id, so timing tells nothing.
      const presented = hmacHex(hmacKey, secret);
      if (row === undefined || !digestsEqual(row.secret_hash, presented)) {
        throw new AuthError("INVALID_API_KEY");
      }
      const expiresAt = row.expires_at === null ? null : Number(row.expires_at);
      if (expiresAt !== null && expiresAt <= seconds) throw new AuthError("INVALID_API_KEY");
      const auth = createAuthContext({ userId: row.user_id, via: "api-key" });
      pending.set(id, seconds);
      if (options.cache) {
        if (cache.size >= CACHE_CAPACITY && !cache.has(token)) {
          const oldest = cache.keys().next();
          if (oldest.done !== true) {
            cache.delete(oldest.value);
            counts.evictions++;
          }
        }
        cache.set(token, { auth, keyId: id, expiresAt, at: time });
      }
      return auth;
    },
    async deleteForUser(db, userId) {
      const result = await db
        .deleteFrom("svc_api_keys")
        .where("user_id", "=", userId)
        .executeTakeFirst();
      return Number(result.numDeletedRows);
    },
    flush,
    forgetUser(userId) {
      forget((entry) => entry.auth.userId === userId);
    },
    forgetAll() {
      counts.invalidations++;
      cache.clear();
    },
    stats: () => ({ ...counts, size: cache.size }),
    async close() {
      clearInterval(timer);
      await flush();
    },
  };
}
