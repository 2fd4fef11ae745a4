import { dialectFor, type EntityTables, type StoreDialect } from "@svc/store";
import type { Kysely } from "kysely";
import type { AuthTables } from "./tables.js";

/**
 * Where auth-core's tables are: a kysely instance on the application
 * database (so account deletion can revoke sessions and delete the `User`
 * row in one transaction), its dialect, and on SQLite the name of the
 * attached database that holds the tables (`SVC_SESSION_DB`).
 */
export interface AuthDatabase {
  /** The store's own kysely instance (`openSqlite` / `openPostgres`). */
  readonly db: Kysely<EntityTables>;
  readonly dialect: StoreDialect;
  readonly schema?: string;
}

/**
 * The kysely handle for the session-store tables (sessions, codes, rate
 * limits), scoped to their attached database when there is one, for `db` or
 * a transaction of it.
 */
export function authTables(database: AuthDatabase, db?: Kysely<EntityTables>): Kysely<AuthTables> {
  const base = (db ?? database.db) as unknown as Kysely<AuthTables>;
  return dialectFor(database.dialect).withAttachedSchema(base, database.schema);
}

/** The kysely handle for the account tables (password hashes), always in the application database. */
export function accountTables(
  database: AuthDatabase,
  db?: Kysely<EntityTables>,
): Kysely<AuthTables> {
  return (db ?? database.db) as unknown as Kysely<AuthTables>;
}
