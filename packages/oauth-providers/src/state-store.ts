import { createHash, createHmac } from "node:crypto";
import { dialectFor, type EntityTables, type StoreDialect } from "@svc/store";
import { generateCodeVerifier, generateState } from "arctic";
import type { Kysely } from "kysely";
import { OAuthError } from "./errors.js";
import type { OAuthStateTables } from "./tables.js";

/** How long a handshake may take: 10 minutes. */
export const STATE_TTL_MS = 10 * 60 * 1000;

/** Options of `createStateStore`. */
export interface StateStoreOptions {
  /** The store's kysely instance (migrated with `oauthStateMigrations`). */
  readonly db: Kysely<EntityTables>;
  readonly dialect: StoreDialect;
  /** The attached SQLite database holding the table; ignored on Postgres. */
  readonly schema?: string;
  /** Keys the HMAC-SHA256 of the state; without it a plain SHA-256 is stored. */
  readonly secret?: string;
  /** Milliseconds since the epoch; default `Date.now`. */
  readonly now?: () => number;
  /** Default `STATE_TTL_MS` (10 minutes). */
  readonly ttlMs?: number;
}

/** What a handshake keeps until its callback. */
export interface SavedState {
  readonly provider: string;
  readonly codeVerifier: string;
  readonly nonce: string;
  /** Where to send the browser afterwards, or null. */
  readonly callback: string | null;
  /**
   * How the session is handed over: `cookie` (default) sets the session
   * cookie only; `token` also puts the token in the callback's fragment.
   */
  readonly response?: "cookie" | "token";
}

/** The random values one handshake needs. */
export interface HandshakeValues {
  readonly state: string;
  readonly codeVerifier: string;
  readonly nonce: string;
}

/** The database-backed, single-use handshake state. */
export interface StateStore {
  /** Keeps `values` under `state` for `ttlMs`; also drops expired handshakes. */
  save(input: SavedState & { readonly state: string }): Promise<void>;
  /**
   * Takes the handshake of `state` out of the store (single use, even when
   * it is refused). Throws `INVALID_STATE` when it is unknown, already used,
   * expired, or was started for another `provider` than the one given.
   */
  consume(state: string, provider?: string): Promise<SavedState>;
  /** Drops every outstanding handshake (a dev-mode test reset). */
  clear(): Promise<void>;
}

/** Fresh random state, PKCE verifier and nonce (arctic's generators, 32 random bytes each). */
export function createHandshakeValues(): HandshakeValues {
  return { state: generateState(), codeVerifier: generateCodeVerifier(), nonce: generateState() };
}

/**
 * The OAuth state store over the database, so a handshake survives a
 * server restart and works across servers. `consume` deletes the row and
 * reads it back in one statement (`delete … returning`, on SQLite 3.35+
 * and Postgres), so two concurrent callbacks with one state cannot both
 * succeed.
 *
 * @example
 * const states = createStateStore({ db, dialect });
 * const values = createHandshakeValues();
 * await states.save({ ...values, provider: "github", callback: "https://app.example/" });
 * const saved = await states.consume(values.state, "github");
 */
export function createStateStore(options: StateStoreOptions): StateStore {
  const now = options.now ?? Date.now;
  const ttl = options.ttlMs ?? STATE_TTL_MS;
  const root = options.db as unknown as Kysely<OAuthStateTables>;
  const db = dialectFor(options.dialect).withAttachedSchema(root, options.schema);
  const hash = (state: string): string =>
    options.secret === undefined
      ? createHash("sha256").update(state).digest("hex")
      : createHmac("sha256", options.secret).update(state).digest("hex");

  return {
    async save({ state, provider, codeVerifier, nonce, callback, response }) {
      if (state === "") throw new TypeError("save: state must not be empty.");
      const at = now();
      await db.deleteFrom("svc_oauth_state").where("expires_at", "<=", at).execute();
      await db
        .insertInto("svc_oauth_state")
        .values({
          id: hash(state),
          provider,
          code_verifier: codeVerifier,
          nonce,
          callback,
          response: response === "token" ? "token" : null,
          created_at: at,
          expires_at: at + ttl,
        })
        .execute();
    },
    async clear() {
      await db.deleteFrom("svc_oauth_state").execute();
    },
    async consume(state, provider) {
      if (typeof state !== "string" || state === "") throw new OAuthError("INVALID_STATE");
      const row = await db
        .deleteFrom("svc_oauth_state")
        .where("id", "=", hash(state))
        .returningAll()
        .executeTakeFirst();
      if (row === undefined) throw new OAuthError("INVALID_STATE");
      if (Number(row.expires_at) <= now()) throw new OAuthError("INVALID_STATE");
      if (provider !== undefined && row.provider !== provider)
        throw new OAuthError("INVALID_STATE");
      return {
        provider: row.provider,
        codeVerifier: row.code_verifier,
        nonce: row.nonce,
        callback: row.callback,
        response: row.response === "token" ? "token" : "cookie",
      };
    },
  };
}
