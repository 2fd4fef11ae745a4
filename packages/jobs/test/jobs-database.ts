import type { StoreDatabase } from "@svc/store";
import { openPostgres } from "@svc/store/pg";
import { openSqlite } from "@svc/store/sqlite";
import { openTestDatabase, type TestDatabaseTarget } from "@svc/tooling/databases";

/** The attached database's schema name on SQLite (as the server uses). */
export const JOBS_SCHEMA = "jobs";

/**
 * Opens a connection to the test database as the server does for jobs: on
 * SQLite the queue lives in a file of its own beside the database, attached
 * as `JOBS_SCHEMA`; on Postgres in the database itself, over a pool of `max`.
 * Shared by the fixture and the kill -9 child process, so both reach the
 * same tables.
 */
export function openJobsDatabase(target: TestDatabaseTarget, max: number): StoreDatabase {
  return openTestDatabase(
    target,
    { openSqlite, openPostgres },
    { max, attach: { [JOBS_SCHEMA]: "jobs.db" } },
  );
}
