import { randomBytes } from "node:crypto";
import { type AuthContext, authContextSchema } from "@svc/schema";
import { dialectFor, type EntityTables, type StoreDialect } from "@svc/store";
import type { Kysely } from "kysely";
import { z } from "zod";
import { type BackoffOptions, backoffDelay } from "./backoff.js";
import { claimJobs } from "./claim-jobs.js";
import { JobsError } from "./errors.js";
import { type Job, toJob } from "./job.js";
import {
  countJobs,
  type JobCounts,
  type JobListOptions,
  type JobPage,
  listJobs,
} from "./list-jobs.js";
import { JOBS_TABLE, type JobsTables } from "./tables.js";

/** Options of `createJobQueue`. */
export interface JobQueueOptions {
  /** The application database's kysely instance (`openSqlite` / `openPostgres`), the store's own. */
  readonly db: Kysely<EntityTables>;
  readonly dialect: StoreDialect;
  /**
   * The attached SQLite database holding the table, as given to
   * `jobsMigrations({ schema })`; ignored on Postgres. Default: the main one.
   */
  readonly schema?: string | undefined;
  /** Unix ms. Default `Date.now`. */
  readonly now?: () => number;
  /** A number in [0, 1), for the retry jitter. Default `Math.random`. */
  readonly random?: () => number;
  /** Attempts before a job goes dead, unless its enqueue says otherwise. Default 5. */
  readonly maxAttempts?: number;
  /** Retry spacing. Default: 1 s doubling per failure, at most 1 h, full jitter. */
  readonly backoff?: BackoffOptions;
  /**
   * How long a claim holds a job, in ms. A worker extends it while the job
   * runs; when its process dies, another worker claims the job once the
   * lease has passed. Default 60 000.
   */
  readonly leaseMs?: number;
}

/** What `enqueue` stores. */
export interface EnqueueRequest {
  /** What to run (for svc servers, a function name). */
  readonly name: string;
  /** JSON-ready arguments. Default `{}`. */
  readonly args?: Readonly<Record<string, unknown>>;
  /** When to run, unix ms. Default now. */
  readonly runAt?: number;
  /** The identity the job runs with: the scheduling caller's. */
  readonly auth: AuthContext;
  /**
   * A deduplication key: a second enqueue with the same key stores nothing
   * and answers the first job's id (cron uses `cron:<name>:<occurrence>`).
   */
  readonly key?: string;
  /** Attempts before the job goes dead. Default the queue's `maxAttempts`. */
  readonly maxAttempts?: number;
}

/** How a failure is recorded. */
export interface FailOptions {
  /** False sends the job straight to the dead-letter list. Default true. */
  readonly retry?: boolean;
}

/**
 * The durable queue. Every state change is one conditional statement (or
 * one short transaction on Postgres), so several workers, in one process or
 * many, never run a job twice at once and never lose one.
 */
export interface JobQueue {
  readonly dialect: StoreDialect;
  /** The lease length in ms (see `JobQueueOptions.leaseMs`). */
  readonly leaseMs: number;
  /**
   * Stores a job and resolves with its id. With `trx` (a transaction of the
   * same database, e.g. a framework transaction's `db`) the job commits or
   * rolls back with it; without, it is written at once.
   */
  enqueue(trx: Kysely<EntityTables> | undefined, request: EnqueueRequest): Promise<string>;
  /**
   * Cancels a pending (or dead) job; resolves false when there is no such
   * job or it is running or finished. With `trx`, as part of that transaction.
   */
  cancel(id: string, trx?: Kysely<EntityTables>): Promise<boolean>;
  /**
   * Claims up to `limit` due jobs for `workerId`: pending ones whose time has
   * come and running ones whose lease expired (their worker died), oldest
   * first. Each becomes `running` with a fresh lease and one more attempt; a
   * reclaimed job already past its attempts goes dead instead.
   */
  claim(workerId: string, limit: number): Promise<Job[]>;
  /** Extends the lease of a job `workerId` holds; false when it no longer holds it. */
  extend(id: string, workerId: string): Promise<boolean>;
  /** Marks a held job succeeded; it never runs again. False when `workerId` no longer holds it. */
  complete(id: string, workerId: string): Promise<boolean>;
  /**
   * Records a failed attempt of a held job: back to pending after a backoff,
   * or dead once its attempts are used up (or with `retry: false`). False
   * when `workerId` no longer holds it.
   */
  fail(id: string, workerId: string, error: unknown, options?: FailOptions): Promise<boolean>;
  /** Makes a dead job, or a failed one waiting for its next attempt, pending now with fresh attempts. */
  retry(id: string): Promise<boolean>;
  get(id: string): Promise<Job | null>;
  /** Jobs newest first, optionally of one status (`dead` is the dead-letter list). */
  list(options?: JobListOptions): Promise<JobPage>;
  /** How many jobs have each status now (one grouped count; the studio's totals, `/metrics`). */
  counts(): Promise<JobCounts>;
  /** Deletes succeeded and cancelled jobs finished before `before` (unix ms); resolves with the count. */
  prune(before: number): Promise<number>;
  /** Deletes every job (a dev-mode test reset). */
  clear(): Promise<void>;
}

const MAX_ERROR_LENGTH = 2000;

const enqueueSchema = z.object({
  name: z.string().min(1).max(200),
  args: z.record(z.string(), z.unknown()).optional(),
  runAt: z.number().finite().optional(),
  auth: authContextSchema,
  key: z.string().min(1).max(500).optional(),
  maxAttempts: z.number().int().min(1).max(1000).optional(),
});

/** A 32-hex-character job id. */
function newJobId(): string {
  return randomBytes(16).toString("hex");
}

function errorText(error: unknown): string {
  const text = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  return text.length > MAX_ERROR_LENGTH ? `${text.slice(0, MAX_ERROR_LENGTH - 1)}…` : text;
}

/**
 * Creates the job queue over the application database. Run
 * `store.migrate({ packages: [jobsMigrations({ schema })] })` first.
 *
 * @example
 * const queue = createJobQueue({ db, dialect });
 * await store.frameworkTransaction(auth, async ({ entities, db }) => {
 *   await entities.insert("Order", { total: 3 });
 *   await queue.enqueue(db, { name: "sendReceipt", args: { total: 3 }, auth });
 * });
 */
export function createJobQueue(options: JobQueueOptions): JobQueue {
  const { dialect } = options;
  const now = options.now ?? Date.now;
  const random = options.random ?? Math.random;
  const defaultMaxAttempts = options.maxAttempts ?? 5;
  const leaseMs = options.leaseMs ?? 60_000;
  const tables = (db?: Kysely<EntityTables>): Kysely<JobsTables> =>
    dialectFor(dialect).withAttachedSchema(
      (db ?? options.db) as unknown as Kysely<JobsTables>,
      options.schema,
    );

  async function enqueue(
    trx: Kysely<EntityTables> | undefined,
    request: EnqueueRequest,
  ): Promise<string> {
    const parsed = enqueueSchema.safeParse(request);
    if (!parsed.success) {
      throw new JobsError("INVALID_JOB", {
        message: `A job request is invalid: ${parsed.error.issues[0]?.path.join(".") ?? ""} ${parsed.error.issues[0]?.message ?? ""}.`,
      });
    }
    const job = parsed.data;
    let args: string;
    try {
      args = JSON.stringify(job.args ?? {});
    } catch (cause) {
      throw new JobsError("INVALID_JOB", { message: "A job's args must be JSON.", cause });
    }
    const at = now();
    const id = newJobId();
    const db = tables(trx);
    const inserted = await db
      .insertInto(JOBS_TABLE)
      .values({
        id,
        name: job.name,
        args,
        auth: JSON.stringify(job.auth),
        status: "pending",
        run_at: Math.round(job.runAt ?? at),
        attempts: 0,
        max_attempts: job.maxAttempts ?? defaultMaxAttempts,
        locked_by: null,
        locked_until: null,
        last_error: null,
        unique_key: job.key ?? null,
        created_at: at,
        updated_at: at,
        finished_at: null,
      })
      .onConflict((conflict) => conflict.column("unique_key").doNothing())
      .returning("id")
      .executeTakeFirst();
    if (inserted !== undefined) return inserted.id;
    const existing = await db
      .selectFrom(JOBS_TABLE)
      .select("id")
      .where("unique_key", "=", job.key ?? "")
      .executeTakeFirstOrThrow();
    return existing.id;
  }

  async function extend(id: string, workerId: string): Promise<boolean> {
    const at = now();
    const result = await tables()
      .updateTable(JOBS_TABLE)
      .set({ locked_until: at + leaseMs, updated_at: at })
      .where("id", "=", id)
      .where("status", "=", "running")
      .where("locked_by", "=", workerId)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  async function complete(id: string, workerId: string): Promise<boolean> {
    const at = now();
    const result = await tables()
      .updateTable(JOBS_TABLE)
      .set({
        status: "succeeded",
        locked_by: null,
        locked_until: null,
        finished_at: at,
        updated_at: at,
      })
      .where("id", "=", id)
      .where("status", "=", "running")
      .where("locked_by", "=", workerId)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  async function fail(
    id: string,
    workerId: string,
    error: unknown,
    failOptions: FailOptions = {},
  ): Promise<boolean> {
    const db = tables();
    const held = await db
      .selectFrom(JOBS_TABLE)
      .select(["attempts", "max_attempts"])
      .where("id", "=", id)
      .where("status", "=", "running")
      .where("locked_by", "=", workerId)
      .executeTakeFirst();
    if (held === undefined) return false;
    const attempts = Number(held.attempts);
    const at = now();
    const dead = failOptions.retry === false || attempts >= Number(held.max_attempts);
    // Conditional on the attempt count read above: a worker that lost its
    // lease in between changes nothing.
    const result = await db
      .updateTable(JOBS_TABLE)
      .set({
        status: dead ? "dead" : "pending",
        locked_by: null,
        locked_until: null,
        last_error: errorText(error),
        updated_at: at,
        ...(dead
          ? { finished_at: at }
          : { run_at: at + backoffDelay(attempts, random, options.backoff) }),
      })
      .where("id", "=", id)
      .where("status", "=", "running")
      .where("locked_by", "=", workerId)
      .where("attempts", "=", attempts)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  async function cancel(id: string, trx?: Kysely<EntityTables>): Promise<boolean> {
    const at = now();
    const result = await tables(trx)
      .updateTable(JOBS_TABLE)
      .set({
        status: "cancelled",
        locked_by: null,
        locked_until: null,
        finished_at: at,
        updated_at: at,
      })
      .where("id", "=", id)
      .where("status", "in", ["pending", "dead"])
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  async function retry(id: string): Promise<boolean> {
    const at = now();
    const result = await tables()
      .updateTable(JOBS_TABLE)
      .set({
        status: "pending",
        run_at: at,
        attempts: 0,
        locked_by: null,
        locked_until: null,
        finished_at: null,
        updated_at: at,
      })
      .where("id", "=", id)
      .where((eb) =>
        eb.or([
          eb("status", "=", "dead"),
          eb.and([eb("status", "=", "pending"), eb("last_error", "is not", null)]),
        ]),
      )
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  async function get(id: string): Promise<Job | null> {
    const row = await tables()
      .selectFrom(JOBS_TABLE)
      .selectAll()
      .where("id", "=", id)
      .executeTakeFirst();
    return row === undefined ? null : toJob(row);
  }

  async function prune(before: number): Promise<number> {
    const result = await tables()
      .deleteFrom(JOBS_TABLE)
      .where("status", "in", ["succeeded", "cancelled"])
      .where("finished_at", "<", before)
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }

  return {
    dialect,
    leaseMs,
    enqueue,
    cancel,
    claim: (workerId, limit) =>
      claimJobs({ db: options.db, dialect, tables, now, leaseMs }, workerId, limit),
    extend,
    complete,
    fail,
    retry,
    get,
    list: (listOptions = {}) => listJobs(tables(), listOptions),
    counts: () => countJobs(tables()),
    prune,
    clear: async () => {
      await tables().deleteFrom(JOBS_TABLE).execute();
    },
  };
}
