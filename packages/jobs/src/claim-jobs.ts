import { dialectFor, type EntityTables, type StoreDialect } from "@svc/store";
import { type Kysely, sql } from "kysely";
import { type Job, toJob } from "./job.js";
import { JOBS_TABLE, type JobsTable, type JobsTables } from "./tables.js";

/** What a claim needs from its queue. */
export interface ClaimContext {
  readonly db: Kysely<EntityTables>;
  readonly dialect: StoreDialect;
  /** The job table's handle (scoped to its attached database), for `db` or a transaction. */
  readonly tables: (db?: Kysely<EntityTables>) => Kysely<JobsTables>;
  readonly now: () => number;
  readonly leaseMs: number;
}

function byRunAt(a: Job, b: Job): number {
  return a.runAt - b.runAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

/**
 * `queue.claim`: takes up to `limit` due jobs (pending ones whose time has
 * come, running ones whose lease expired) for `workerId`, oldest first.
 */
export async function claimJobs(
  context: ClaimContext,
  workerId: string,
  limit: number,
): Promise<Job[]> {
  const { dialect, tables, now, leaseMs } = context;
  if (limit < 1) return [];
  const at = now();
  const claimed = {
    status: "running" as const,
    locked_by: workerId,
    locked_until: at + leaseMs,
    attempts: sql<number>`attempts + 1`,
    updated_at: at,
  };
  let rows: JobsTable[];
  if (dialectFor(dialect).concurrentWriters) {
    // SKIP LOCKED: concurrent claimers on other servers take other rows
    // instead of waiting for these, and never the same ones.
    rows = await context.db.transaction().execute(async (trx) => {
      const db = tables(trx);
      const due = await db
        .selectFrom(JOBS_TABLE)
        .select("id")
        .where((eb) =>
          eb.or([
            eb.and([eb("status", "=", "pending"), eb("run_at", "<=", at)]),
            eb.and([eb("status", "=", "running"), eb("locked_until", "<=", at)]),
          ]),
        )
        .orderBy("run_at")
        .orderBy("id")
        .limit(limit)
        .forUpdate()
        .skipLocked()
        .execute();
      if (due.length === 0) return [];
      return db
        .updateTable(JOBS_TABLE)
        .set(claimed)
        .where(
          "id",
          "in",
          due.map((row) => row.id),
        )
        .returningAll()
        .execute();
    });
  } else {
    // SQLite has one writer at a time: a single UPDATE ... RETURNING picks
    // and takes the rows atomically, across processes too.
    const db = tables();
    rows = await db
      .updateTable(JOBS_TABLE)
      .set(claimed)
      .where("id", "in", (eb) =>
        eb
          .selectFrom(JOBS_TABLE)
          .select("id")
          .where((inner) =>
            inner.or([
              inner.and([inner("status", "=", "pending"), inner("run_at", "<=", at)]),
              inner.and([inner("status", "=", "running"), inner("locked_until", "<=", at)]),
            ]),
          )
          .orderBy("run_at")
          .orderBy("id")
          .limit(limit),
      )
      .returningAll()
      .execute();
  }
  const jobs: Job[] = [];
  for (const row of rows) {
    const job = toJob(row);
    // Claimed once more than allowed: its earlier workers all died with it
    // (a job that crashes its process); stop here instead of looping.
    if (job.attempts > job.maxAttempts) {
      await tables()
        .updateTable(JOBS_TABLE)
        .set({
          status: "dead",
          locked_by: null,
          locked_until: null,
          last_error: job.lastError ?? "The worker running the job stopped before it finished.",
          finished_at: at,
          updated_at: at,
        })
        .where("id", "=", job.id)
        .where("locked_by", "=", workerId)
        .execute();
      continue;
    }
    jobs.push(job);
  }
  return jobs.sort(byRunAt);
}
