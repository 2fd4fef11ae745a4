import type { Kysely } from "kysely";

/**
 * The table shape the store queries through: any table name, any column.
 * Entity tables are only known at run time, from the manifest.
 */
export type EntityTables = Record<string, Record<string, unknown>>;

/** The SQL dialects the store speaks. */
export type StoreDialect = "sqlite" | "postgres";

/**
 * An open database, as `openSqlite` and `openPostgres` return it: hand `db`
 * and `dialect` to `createStore`, call `close` once at shutdown.
 */
export interface StoreDatabase<TDialect extends StoreDialect = StoreDialect> {
  readonly db: Kysely<EntityTables>;
  readonly dialect: TDialect;
  /** Destroys the kysely instance and closes the file or pool; safe to call twice. */
  close(): Promise<void>;
}
