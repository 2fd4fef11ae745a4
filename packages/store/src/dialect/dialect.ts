import type { Kysely, RawBuilder } from "kysely";

/** The SQL dialects the store speaks, by the names package options take. */
export const STORE_DIALECTS = ["sqlite", "postgres"] as const;

/** The name of a dialect the store speaks: what `openSqlite` / `openPostgres` put in `dialect`. */
export type StoreDialect = (typeof STORE_DIALECTS)[number];

/** Any tables: the shape of the store's kysely instances (`EntityTables`). */
export type AnyTables = Record<string, Record<string, unknown>>;

/** A query that can take a row lock: kysely's select builder. */
export interface Lockable<TQuery> {
  forUpdate(): TQuery;
}

/**
 * What differs between SQLite and Postgres, in one place (kysely's way: one
 * module per dialect behind one interface). Packages that keep tables of
 * their own ask this object instead of comparing dialect names; get it with
 * `dialectFor(name)` from the `dialect` their options already receive.
 *
 * @example
 * const dialect = dialectFor(options.dialect);
 * const row = await dialect.lockForUpdate(db.selectFrom("t").selectAll().where("id", "=", id)).executeTakeFirst();
 */
export interface Dialect {
  /** The name, as package options and `StoreDatabase.dialect` carry it (for display and configuration). */
  readonly name: StoreDialect;
  /** OpenTelemetry's `db.system.name` for the database. */
  readonly systemName: "sqlite" | "postgresql";
  /**
   * True when several connections, processes or servers write the database
   * at once (Postgres): row locks, `SKIP LOCKED` and advisory locks
   * coordinate them, transactions may commit out of the order they started,
   * and what another server changed must be polled for. False on SQLite:
   * one writer at a time on one file, so a transaction already excludes
   * every other writer.
   */
  readonly concurrentWriters: boolean;
  /** True when the database has LISTEN/NOTIFY (Postgres). */
  readonly notifies: boolean;
  /**
   * True when a failed statement aborts the whole transaction (Postgres), so
   * a statement whose failure is recovered from runs under a savepoint.
   */
  readonly statementErrorAbortsTransaction: boolean;
  /** The column type of an auto-numbered integer primary key: `integer` (SQLite's rowid) or `bigserial`. */
  readonly serialKeyType: "integer" | "bigserial";
  /**
   * True when an auto-numbered key restarts below numbers already handed out
   * once the table is emptied (SQLite's rowid takes max + 1); a Postgres
   * sequence never goes back.
   */
  readonly serialKeyRestarts: boolean;
  /** Stores booleans as 0/1 (SQLite) rather than as a boolean type. */
  readonly booleansAsIntegers: boolean;
  /**
   * True when rows come back in the driver's storage types (SQLite: bool as
   * 0/1, json as text) and need decoding; the store's Postgres pools parse
   * them into API values already.
   */
  readonly rowsNeedDecoding: boolean;
  /**
   * True when `CREATE TABLE` may reference a table not created yet (SQLite
   * checks references only when rows are written), so a migration adds
   * every reference with its table instead of deferring some.
   */
  readonly forwardReferences: boolean;
  /** What ends an entity table's `CREATE TABLE` (SQLite: `strict, without rowid`), if anything. */
  readonly entityTableSuffix: RawBuilder<unknown> | undefined;
  /**
   * Serialises transactions that take the same `key` across every process
   * on the database, until the transaction ends (`pg_advisory_xact_lock`);
   * nothing on SQLite, whose write transaction already excludes other writers.
   */
  lockTransaction(trx: Kysely<AnyTables>, key: number): Promise<void>;
  /**
   * Deletes every row of `tables` in the transaction `trx`, references
   * between them notwithstanding (Postgres `TRUNCATE`; SQLite deletes with
   * foreign keys deferred to the commit).
   */
  emptyTables(trx: Kysely<AnyTables>, tables: readonly string[]): Promise<void>;
  /**
   * Locks the selected rows until the transaction ends: `FOR UPDATE` on
   * Postgres; the query itself on SQLite, whose write transaction already
   * holds the whole database.
   */
  lockForUpdate<TQuery extends Lockable<TQuery>>(query: TQuery): TQuery;
  /**
   * The schema a package's tables live in, when they live beside the
   * application database: on SQLite an attached database's name (`ATTACH`);
   * on Postgres always `undefined` (one database, reached by the search path).
   */
  attachedSchema(schema: string | undefined): string | undefined;
  /** `db` scoped to `attachedSchema(schema)`, or `db` itself when there is none. */
  withAttachedSchema<TDB>(db: Kysely<TDB>, schema: string | undefined): Kysely<TDB>;
  /** A table name for raw SQL, qualified by `attachedSchema(schema)` when there is one. */
  table(name: string, schema?: string): RawBuilder<unknown>;
  /**
   * In an upsert's `DO UPDATE SET`, the existing row's `column`: SQLite
   * reads the bare column that way; Postgres needs the table's name to tell
   * it from `excluded`.
   */
  existingColumn(table: string, column: string): RawBuilder<unknown>;
  /** A boolean as a bound parameter: 0/1 on SQLite, itself on Postgres. */
  encodeBool(value: boolean): boolean | number;
}
