import { dialectFor } from "@svc/store";
import type { ClientRateLimitInfo, Options, Store } from "express-rate-limit";
import { sql } from "kysely";
import type { AuthDatabase } from "../auth-database.js";

/**
 * An express-rate-limit store on auth-core's `svc_rate_limits` table:
 * fixed windows, one upsert per hit, so every server on one Postgres (or
 * every worker on one SQLite file) shares the counters.
 */
export class DatabaseRateLimitStore implements Store {
  readonly localKeys = false;
  readonly prefix: string;
  #windowMs = 60_000;
  readonly #database: AuthDatabase;
  readonly #now: () => number;

  /**
   * `windowMs` is the window before express-rate-limit's `init` sets it
   * (default one minute); a store used on its own passes it here.
   */
  constructor(
    database: AuthDatabase,
    options: { prefix: string; now?: () => number; windowMs?: number },
  ) {
    this.#database = database;
    this.prefix = options.prefix;
    this.#now = options.now ?? Date.now;
    if (options.windowMs !== undefined) this.#windowMs = options.windowMs;
  }

  init(options: Options): void {
    this.#windowMs = options.windowMs;
  }

  #table() {
    const { schema, dialect } = this.#database;
    return dialectFor(dialect).table("svc_rate_limits", schema);
  }

  // In an upsert, the existing row's value (not `excluded`'s).
  #existing(column: "hits" | "reset_at") {
    return dialectFor(this.#database.dialect).existingColumn("svc_rate_limits", column);
  }

  async increment(key: string): Promise<ClientRateLimitInfo> {
    const now = this.#now();
    const resetAt = now + this.#windowMs;
    const id = this.prefix + key;
    const hits = this.#existing("hits");
    const reset = this.#existing("reset_at");
    const result = await sql<{ hits: number; reset_at: number }>`
      insert into ${this.#table()} (key, hits, reset_at) values (${id}, 1, ${resetAt})
      on conflict (key) do update set
        hits = case when ${reset} <= ${now} then 1 else ${hits} + 1 end,
        reset_at = case when ${reset} <= ${now} then ${resetAt} else ${reset} end
      returning hits, reset_at`.execute(this.#database.db);
    const row = result.rows[0];
    return {
      totalHits: Number(row?.hits ?? 1),
      resetTime: new Date(Number(row?.reset_at ?? resetAt)),
    };
  }

  /** The count of the window in force for `key`, or undefined when it has none (or it ended). */
  async get(key: string): Promise<ClientRateLimitInfo | undefined> {
    const result = await sql<{ hits: number; reset_at: number }>`
      select hits, reset_at from ${this.#table()}
      where key = ${this.prefix + key} and reset_at > ${this.#now()}`.execute(this.#database.db);
    const row = result.rows[0];
    if (row === undefined) return undefined;
    return { totalHits: Number(row.hits), resetTime: new Date(Number(row.reset_at)) };
  }

  /**
   * Starts a fresh window of one hit for `key`, replacing any count: a
   * mark that lasts `windowMs` from now (renewed by marking again).
   */
  async mark(key: string): Promise<void> {
    const resetAt = this.#now() + this.#windowMs;
    await sql`
      insert into ${this.#table()} (key, hits, reset_at) values (${this.prefix + key}, 1, ${resetAt})
      on conflict (key) do update set hits = 1, reset_at = ${resetAt}`.execute(this.#database.db);
  }

  async decrement(key: string): Promise<void> {
    await sql`update ${this.#table()} set hits = hits - 1 where key = ${this.prefix + key} and hits > 0`.execute(
      this.#database.db,
    );
  }

  async resetKey(key: string): Promise<void> {
    await sql`delete from ${this.#table()} where key = ${this.prefix + key}`.execute(
      this.#database.db,
    );
  }
}
