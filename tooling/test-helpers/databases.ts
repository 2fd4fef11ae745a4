import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";

/**
 * Where a test suite's database lives. SQLite gets a fresh file in a temp
 * directory; Postgres gets a fresh schema on the server named by
 * `SVC_TEST_DATABASE_URL`, selected through `search_path`, so suites never
 * see each other's tables and never depend on the order they run in.
 */
export type TestDatabaseTarget =
  | { dialect: "sqlite"; path: string }
  | { dialect: "postgres"; url: string; schema: string };

export interface TestDatabase {
  readonly name: "sqlite" | "postgres";
  /** Creates an empty, isolated database and returns how to reach it. */
  create(): Promise<TestDatabaseTarget>;
  /** Drops what `create` made. */
  destroy(target: TestDatabaseTarget): Promise<void>;
}

const sqlite: TestDatabase = {
  name: "sqlite",
  async create() {
    const dir = mkdtempSync(join(tmpdir(), "svc-test-"));
    return { dialect: "sqlite", path: join(dir, "test.db") };
  },
  async destroy(target) {
    if (target.dialect === "sqlite")
      rmSync(join(target.path, ".."), { recursive: true, force: true });
  },
};

function postgres(url: string): TestDatabase {
  return {
    name: "postgres",
    async create() {
      const schema = `svc_test_${randomBytes(6).toString("hex")}`;
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        await client.query(`CREATE SCHEMA "${schema}"`);
      } finally {
        await client.end();
      }
      return { dialect: "postgres", url: withSearchPath(url, schema), schema };
    },
    async destroy(target) {
      if (target.dialect !== "postgres") return;
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        await client.query(`DROP SCHEMA IF EXISTS "${target.schema}" CASCADE`);
      } finally {
        await client.end();
      }
    },
  };
}

/** Adds `options=-c search_path=<schema>` to a Postgres connection string. */
function withSearchPath(url: string, schema: string): string {
  const parsed = new URL(url);
  parsed.searchParams.set("options", `-c search_path=${schema}`);
  return parsed.toString();
}

let announcedSkip = false;

/**
 * The databases a storage suite must pass on: always SQLite, and Postgres
 * when `SVC_TEST_DATABASE_URL` is set. Without it the Postgres suites are
 * left out and a line says so, once per test file.
 */
export function testDatabases(): TestDatabase[] {
  const url = process.env.SVC_TEST_DATABASE_URL;
  if (url) return [sqlite, postgres(url)];
  if (!announcedSkip) {
    announcedSkip = true;
    console.warn("[svc] Postgres suites skipped: set SVC_TEST_DATABASE_URL to run them.");
  }
  return [sqlite];
}
