import type { Kysely } from "kysely";
import type { StoreDialect } from "./dialect/dialect.js";

export type { StoreDialect } from "./dialect/dialect.js";

/**
 * The table shape the store queries through: any table name, any column.
 * Entity tables are only known at run time, from the manifest.
 */
export type EntityTables = Record<string, Record<string, unknown>>;

/**
 * An open database, as `openSqlite` and `openPostgres` return it: hand `db`,
 * `readDb` and `dialect` to `createStore` (`createStore({ ...database,
 * manifest })`), call `close` once at shutdown.
 */
export interface StoreDatabase<TDialect extends StoreDialect = StoreDialect> {
  /** The writer: transactions, migrations, and the framework packages' own tables. */
  readonly db: Kysely<EntityTables>;
  /**
   * The read pool: the store's reads outside a transaction. On Postgres a
   * pool of its own (default 4 read-only connections); on a SQLite file a
   * read-only connection of its own; `db` itself for SQLite `:memory:`.
   */
  readonly readDb: Kysely<EntityTables>;
  readonly dialect: TDialect;
  /** Destroys both kysely instances and closes the files or pools; safe to call twice. */
  close(): Promise<void>;
}
