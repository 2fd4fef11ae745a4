import type { AccessTestDatabase } from "@svc/policy-engine/access-tests";
import { openPostgres } from "@svc/store/pg";
import { openSqlite } from "@svc/store/sqlite";
import { ConfigError } from "../config.js";

/** The databases a `svc policy` command runs the compiled SQL on, and how to close them. */
export interface ProbeDatabases {
  readonly databases: readonly AccessTestDatabase[];
  close(): Promise<void>;
}

/**
 * Opens an in-memory SQLite database (through the store's opener, so the
 * connection is set up as the server's), and Postgres when `databaseURL`
 * is given. The checks run in transactions that are rolled back (on
 * Postgres in a fresh schema), so the URL may name any database the user
 * can create a schema in; nothing is left behind.
 */
export async function openProbeDatabases(databaseURL: string | undefined): Promise<ProbeDatabases> {
  if (databaseURL !== undefined && !/^postgres(ql)?:\/\//.test(databaseURL)) {
    throw new ConfigError("DATABASE_URL", "--database-url must be a postgres:// URL");
  }
  const sqlite = openSqlite(":memory:");
  const postgres =
    databaseURL === undefined ? undefined : openPostgres(databaseURL, { max: 1, readMax: 0 });
  const databases: AccessTestDatabase[] = [sqlite, postgres].flatMap((opened) =>
    opened === undefined ? [] : [{ name: opened.dialect, dialect: opened.dialect, db: opened.db }],
  );
  return {
    databases,
    async close() {
      await sqlite.close();
      await postgres?.close();
    },
  };
}
