import {
  openTestDatabase,
  type TestDatabase,
  type TestDatabaseTarget,
} from "@svc/tooling/databases";
import Database from "better-sqlite3";
import { Kysely, PostgresDialect, SqliteDialect } from "kysely";
import pg from "pg";
import type { AccessTestDatabase } from "../src/access-tests.js";

/** An opened test database for the access checks, and how to dispose of it. */
export interface OpenedDatabase {
  readonly database: AccessTestDatabase;
  /** Where it lives, for a check that differs per kind of database (`matchTarget`). */
  readonly target: TestDatabaseTarget;
  close(): Promise<void>;
}

type Tables = Record<string, Record<string, unknown>>;

/** Creates an isolated database of `kind` and opens it through kysely. */
export async function openAccessDatabase(kind: TestDatabase): Promise<OpenedDatabase> {
  const target: TestDatabaseTarget = await kind.create();
  const db = openTestDatabase(
    target,
    {
      openSqlite: (path) =>
        new Kysely<Tables>({ dialect: new SqliteDialect({ database: new Database(path) }) }),
      openPostgres: (url, { max }) =>
        new Kysely<Tables>({
          dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: url, max }) }),
        }),
    },
    { max: 1 },
  );
  return {
    database: { name: kind.name, dialect: target.dialect, db },
    target,
    async close() {
      await db.destroy();
      await kind.destroy(target);
    },
  };
}
