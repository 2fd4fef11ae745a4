import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import pg from "pg";

/**
 * Where a test suite's database lives. SQLite gets a fresh file in a temp
 * directory; Postgres gets a fresh schema on the server named by
 * `SVC_TEST_DATABASE_URL`, selected through `search_path`, so suites never
 * see each other's tables and never depend on the order they run in.
 */
export type TestDatabaseTarget = SqliteTestTarget | PostgresTestTarget;

/** A SQLite test database: a file of its own in a fresh temp directory. */
export interface SqliteTestTarget {
  dialect: "sqlite";
  path: string;
}

/** A Postgres test database: a fresh schema, selected by the URL's search path. */
export interface PostgresTestTarget {
  dialect: "postgres";
  url: string;
  schema: string;
}

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
    matchTarget(target, {
      sqlite: ({ path }) => rmSync(dirname(path), { recursive: true, force: true }),
      postgres: () => undefined,
    });
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
      await matchTarget(target, {
        sqlite: async () => undefined,
        postgres: async ({ schema }) => {
          const client = new pg.Client({ connectionString: url });
          await client.connect();
          try {
            await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
          } finally {
            await client.end();
          }
        },
      });
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
  const postgres = postgresTestDatabase();
  return postgres === undefined ? [sqlite] : [sqlite, postgres];
}

/**
 * The SQLite suite alone, for tests of what only SQLite has (attached
 * files, in-memory session tables, a disk that fills up) or that need one
 * database and no more.
 */
export function sqliteTestDatabase(): TestDatabase {
  return sqlite;
}

/**
 * The Postgres suite alone, for tests of what only Postgres has (several
 * servers on one database, LISTEN/NOTIFY, out-of-order commits), or
 * `undefined` when `SVC_TEST_DATABASE_URL` is unset (a line then says so).
 *
 * @example
 * const postgres = postgresTestDatabase();
 * describe.skipIf(postgres === undefined)("two servers on Postgres", () => { ... });
 */
export function postgresTestDatabase(): TestDatabase | undefined {
  const url = process.env.SVC_TEST_DATABASE_URL;
  if (url) return postgres(url);
  if (!announcedSkip) {
    announcedSkip = true;
    console.warn("[svc] Postgres suites skipped: set SVC_TEST_DATABASE_URL to run them.");
  }
  return undefined;
}

/**
 * {@link postgresTestDatabase} as a list of none or one, for `describe.each`.
 *
 * @example
 * describe.each(postgresTestDatabases())("commit order on $name", (database) => { ... });
 */
export function postgresTestDatabases(): TestDatabase[] {
  const postgres = postgresTestDatabase();
  return postgres === undefined ? [] : [postgres];
}

/** What to do with each kind of target. */
export interface TargetCases<T> {
  sqlite(target: SqliteTestTarget): T;
  postgres(target: PostgresTestTarget): T;
}

/**
 * Runs the case for `target`'s kind and returns what it returns. This is
 * the one place that tells the two kinds of target apart; fixtures go
 * through it (or the helpers below) instead of comparing dialect names.
 *
 * @example
 * const env = matchTarget(target, {
 *   sqlite: ({ path }) => ({ SVC_DB_PATH: path }),
 *   postgres: ({ url }) => ({ DATABASE_URL: url }),
 * });
 */
export function matchTarget<T>(target: TestDatabaseTarget, cases: TargetCases<T>): T {
  switch (target.dialect) {
    case "sqlite":
      return cases.sqlite(target);
    case "postgres":
      return cases.postgres(target);
  }
}

/**
 * `target` as a Postgres target, for a test that only runs on Postgres and
 * needs its URL and schema (`pg_dump --schema`); throws on a SQLite target.
 */
export function postgresTarget(target: TestDatabaseTarget): PostgresTestTarget {
  return matchTarget(target, {
    sqlite: () => {
      throw new Error("a Postgres test database was expected, not SQLite");
    },
    postgres: (postgres) => postgres,
  });
}

/**
 * The connection string of a Postgres target, for a test that talks to
 * Postgres itself (a second pool, `pg`); throws on a SQLite target.
 */
export function postgresUrl(target: TestDatabaseTarget): string {
  return postgresTarget(target).url;
}

/**
 * How to open each kind of target: the store's `openSqlite` and
 * `openPostgres`, or a suite's own openers. The caller passes them in, so
 * these helpers stay free of a dependency on the store (which itself
 * depends on them for its tests).
 */
export interface TestDatabaseOpeners<TSqlite, TPostgres> {
  openSqlite(path: string, options: { attach?: Readonly<Record<string, string>> }): TSqlite;
  openPostgres(url: string, options: { max?: number }): TPostgres;
}

/** Options of {@link openTestDatabase}; each applies to one kind of target only. */
export interface OpenTestDatabaseOptions {
  /** Postgres: the connection pool's size (the opener's default when left out). */
  readonly max?: number;
  /**
   * SQLite: databases to attach, schema name to a file name that is put
   * beside the test database (so `destroy` removes it too), or `:memory:`.
   */
  readonly attach?: Readonly<Record<string, string>>;
}

/**
 * Opens `target` with the opener for its kind.
 *
 * @example
 * import { openPostgres } from "@svc/store/pg";
 * import { openSqlite } from "@svc/store/sqlite";
 *
 * const database = openTestDatabase(target, { openSqlite, openPostgres }, { max: 4, attach: { jobs: "jobs.db" } });
 */
export function openTestDatabase<TSqlite, TPostgres>(
  target: TestDatabaseTarget,
  openers: TestDatabaseOpeners<TSqlite, TPostgres>,
  options: OpenTestDatabaseOptions = {},
): TSqlite | TPostgres {
  return matchTarget<TSqlite | TPostgres>(target, {
    sqlite: ({ path }) =>
      openers.openSqlite(
        path,
        options.attach === undefined ? {} : { attach: besideDatabase(path, options.attach) },
      ),
    postgres: ({ url }) =>
      openers.openPostgres(url, options.max === undefined ? {} : { max: options.max }),
  });
}

/** Attached file names resolved to paths in the SQLite database's directory (`:memory:` stays). */
function besideDatabase(
  path: string,
  attach: Readonly<Record<string, string>>,
): Record<string, string> {
  return Object.fromEntries(
    Object.entries(attach).map(([schema, file]) => [
      schema,
      file === ":memory:" ? file : join(dirname(path), file),
    ]),
  );
}

/** Options of {@link serverDatabaseEnv}. */
export interface ServerDatabaseEnvOptions {
  /** SQLite: the job queue's file (`SVC_JOBS_DB`); the server ignores it on Postgres, so it is left out there. */
  readonly jobsFile?: string;
  /**
   * SQLite: the session store's file (`SVC_SESSION_DB`), which keeps
   * sessions across a restart and shares them between servers on the same
   * files; on Postgres they live in `DATABASE_URL`, so it is left out there.
   */
  readonly sessionsFile?: string;
}

/**
 * The svc server's environment for reaching `target`: `SVC_DB_PATH` (and
 * the side files asked for) for a SQLite file, `DATABASE_URL` for Postgres.
 */
export function serverDatabaseEnv(
  target: TestDatabaseTarget,
  options: ServerDatabaseEnvOptions = {},
): Record<string, string> {
  return matchTarget<Record<string, string>>(target, {
    sqlite: ({ path }) => ({
      SVC_DB_PATH: path,
      ...(options.jobsFile !== undefined && { SVC_JOBS_DB: options.jobsFile }),
      ...(options.sessionsFile !== undefined && { SVC_SESSION_DB: options.sessionsFile }),
    }),
    postgres: ({ url }) => ({ DATABASE_URL: url }),
  });
}
