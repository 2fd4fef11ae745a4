import type { EntityTables, PackageMigrations } from "@svc/store";
import { type Kysely, sql } from "kysely";

/** The job table's name (in the application database, or the attached `SVC_JOBS_DB` on SQLite). */
export const JOBS_TABLE = "svc_jobs";

/** Where a job is in its life. `dead` is the dead-letter list. */
export type JobStatus = "pending" | "running" | "succeeded" | "dead" | "cancelled";

/** Every status, in list order. */
export const JOB_STATUSES: readonly JobStatus[] = [
  "pending",
  "running",
  "succeeded",
  "dead",
  "cancelled",
];

/**
 * One job row. Times are unix ms (`bigint`; Postgres returns them as
 * strings, read them through `Number`). `args` and `auth` are JSON text.
 */
export interface JobsTable {
  id: string;
  name: string;
  args: string;
  /** The scheduling caller's serialised `AuthContext`. */
  auth: string;
  status: JobStatus;
  /** When the job may run next. */
  run_at: number | string;
  /** Claims so far (a claim whose worker died counts too). */
  attempts: number;
  max_attempts: number;
  /** The worker holding the lease while `running`. */
  locked_by: string | null;
  /** When the lease ends; past it any worker may claim the job again. */
  locked_until: number | string | null;
  last_error: string | null;
  /** Deduplicates enqueues (cron occurrences); null for most jobs. */
  unique_key: string | null;
  created_at: number | string;
  updated_at: number | string;
  finished_at: number | string | null;
}

/** The tables @svc/jobs reads and writes, for a typed kysely instance. */
export interface JobsTables {
  svc_jobs: JobsTable;
}

/**
 * `create index`: in an attached SQLite database the index name carries the
 * schema and the table must not, which kysely's builder cannot express.
 */
async function createIndex(
  db: Kysely<EntityTables>,
  schema: string | undefined,
  name: string,
  columns: readonly string[],
): Promise<void> {
  const qualified = schema === undefined ? sql.id(name) : sql`${sql.id(schema)}.${sql.id(name)}`;
  const list = sql.join(columns.map((column) => sql.id(column)));
  await sql`create index ${qualified} on ${sql.id(JOBS_TABLE)} (${list})`.execute(db);
}

/** Options of `jobsMigrations`. */
export interface JobsMigrationsOptions {
  /**
   * The attached SQLite database holding the table (see `openSqlite`'s
   * `attach`); ignored on Postgres, where the table is in the application
   * database. Default: the main database.
   */
  readonly schema?: string | undefined;
}

/**
 * The job table's plan, for `store.migrate({ packages: [jobsMigrations()] })`.
 * The table must be reachable from the store's connection (same database,
 * or attached on SQLite) so a job scheduled in a mutation is written in the
 * mutation's transaction.
 */
export function jobsMigrations(options: JobsMigrationsOptions = {}): PackageMigrations {
  return {
    owner: "@svc/jobs",
    ...(options.schema !== undefined && { schema: options.schema }),
    migrations: [
      {
        id: "001_jobs",
        async up(db, { schema }) {
          await db.schema
            .createTable(JOBS_TABLE)
            .addColumn("id", "text", (col) => col.primaryKey())
            .addColumn("name", "text", (col) => col.notNull())
            .addColumn("args", "text", (col) => col.notNull())
            .addColumn("auth", "text", (col) => col.notNull())
            .addColumn("status", "text", (col) => col.notNull())
            .addColumn("run_at", "bigint", (col) => col.notNull())
            .addColumn("attempts", "integer", (col) => col.notNull().defaultTo(0))
            .addColumn("max_attempts", "integer", (col) => col.notNull())
            .addColumn("locked_by", "text")
            .addColumn("locked_until", "bigint")
            .addColumn("last_error", "text")
            .addColumn("unique_key", "text", (col) => col.unique())
            .addColumn("created_at", "bigint", (col) => col.notNull())
            .addColumn("updated_at", "bigint", (col) => col.notNull())
            .addColumn("finished_at", "bigint")
            .execute();
          // What a claim scans: due pending jobs and expired leases, by time.
          await createIndex(db, schema, "svc_jobs_due", ["status", "run_at"]);
          // The admin list, newest first.
          await createIndex(db, schema, "svc_jobs_created", ["created_at", "id"]);
        },
      },
    ],
  };
}
