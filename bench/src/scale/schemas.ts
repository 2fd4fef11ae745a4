import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";

/**
 * The fresh schemas of one run on one Postgres database, each reached
 * through a URL whose `search_path` selects it (as the Postgres test suites
 * do) and whose `application_name` tags every connection opened with it, so
 * `pg_stat_activity` can be read for one case while other work shares the
 * server.
 */
export interface RunSchemas {
  /** Creates a schema for one case; `url` reaches it, `applicationName` tags its connections. */
  create(label: string): Promise<{ url: string; applicationName: string }>;
  /** Drops every schema this run created. */
  dropAll(): Promise<void>;
}

/** Sets `options=-c search_path=<schema>` and `application_name` on a Postgres URL. */
function caseURL(url: string, schema: string, applicationName: string): string {
  const parsed = new URL(url);
  parsed.searchParams.set("options", `-c search_path=${schema}`);
  parsed.searchParams.set("application_name", applicationName);
  return parsed.toString();
}

async function run(url: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/** Checks that the database answers; throws the driver's error when it does not. */
export async function checkDatabase(url: string): Promise<void> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5000 });
  await client.connect();
  await client.end();
}

/** Schemas named `svc_bench_<run>_<label>`, one random run id per process. */
export function runSchemas(url: string): RunSchemas {
  const run_id = randomBytes(4).toString("hex");
  const created: string[] = [];
  return {
    async create(label) {
      const schema = `svc_bench_${run_id}_${label}`;
      await run(url, `CREATE SCHEMA "${schema}"`);
      created.push(schema);
      const applicationName = `svc-bench-${run_id}-${label}`;
      return { url: caseURL(url, schema, applicationName), applicationName };
    },
    async dropAll() {
      while (created.length > 0) {
        const schema = created.pop();
        if (schema !== undefined) await run(url, `DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      }
    },
  };
}

/** A temporary folder and the schemas of one Postgres bench run. */
export interface PostgresRun {
  readonly dir: string;
  readonly schemas: RunSchemas;
}

/**
 * What a Postgres bench run must remove however it ends: `open` makes its
 * temporary folder and schema set; `close` drops and removes both, at the
 * end of the run and as `runBench`'s clean-up on failure or Ctrl-C (once
 * the servers are killed), and does nothing the second time.
 */
export function postgresRunResources(): {
  open(url: string, folderPrefix: string): Promise<PostgresRun>;
  close(): Promise<void>;
} {
  let current: PostgresRun | undefined;
  const close = async (): Promise<void> => {
    const run = current;
    current = undefined;
    if (run === undefined) return;
    await run.schemas.dropAll();
    await rm(run.dir, { recursive: true, force: true });
  };
  return {
    async open(url, folderPrefix) {
      const dir = await mkdtemp(join(tmpdir(), folderPrefix));
      current = { dir, schemas: runSchemas(url) };
      return current;
    },
    close,
  };
}
