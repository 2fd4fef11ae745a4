import type { TestDatabase, TestDatabaseTarget } from "@svc/tooling/databases";
import Database from "better-sqlite3";
import { Kysely, PostgresDialect, SqliteDialect } from "kysely";
import pg from "pg";
import type { AccessTestDatabase } from "../src/access-tests.js";

/** An opened test database for the access checks, and how to dispose of it. */
export interface OpenedDatabase {
  readonly database: AccessTestDatabase;
  close(): Promise<void>;
}

/** Creates an isolated database of `kind` and opens it through kysely. */
export async function openAccessDatabase(kind: TestDatabase): Promise<OpenedDatabase> {
  const target: TestDatabaseTarget = await kind.create();
  const db =
    target.dialect === "postgres"
      ? new Kysely<Record<string, Record<string, unknown>>>({
          dialect: new PostgresDialect({
            pool: new pg.Pool({ connectionString: target.url, max: 1 }),
          }),
        })
      : new Kysely<Record<string, Record<string, unknown>>>({
          dialect: new SqliteDialect({ database: new Database(target.path) }),
        });
  return {
    database: { name: kind.name, dialect: target.dialect, db },
    async close() {
      await db.destroy();
      await kind.destroy(target);
    },
  };
}
