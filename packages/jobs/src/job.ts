import { type AuthContext, authContextSchema } from "@svc/schema";
import type { JobStatus, JobsTable } from "./tables.js";

/** One job as the queue hands it out and the admin API lists it. Times are unix ms. */
export interface Job {
  readonly id: string;
  /** What to run; for svc servers, the function name. */
  readonly name: string;
  readonly args: Readonly<Record<string, unknown>>;
  /** The caller that scheduled the job; it runs with this identity. */
  readonly auth: AuthContext;
  readonly status: JobStatus;
  /** When the job may run (next). */
  readonly runAt: number;
  /** Claims so far, this one included while `running`. */
  readonly attempts: number;
  readonly maxAttempts: number;
  /** The last failure's message (kept when the job is retried). */
  readonly lastError: string | null;
  /** The dedup key given at enqueue (cron occurrences have one). */
  readonly key: string | null;
  /** The worker holding the job while `running`. */
  readonly lockedBy: string | null;
  /** When that worker's lease ends. */
  readonly lockedUntil: number | null;
  readonly createdAt: number;
  readonly updatedAt: number;
  /** When it succeeded, went dead or was cancelled. */
  readonly finishedAt: number | null;
}

function toNumber(value: number | string): number {
  return typeof value === "number" ? value : Number(value);
}

function toNumberOrNull(value: number | string | null): number | null {
  return value === null ? null : toNumber(value);
}

function parseArgs(text: string): Readonly<Record<string, unknown>> {
  const value: unknown = JSON.parse(text);
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};
}

/** A stored row as a `Job`. */
export function toJob(row: JobsTable): Job {
  return {
    id: row.id,
    name: row.name,
    args: parseArgs(row.args),
    auth: Object.freeze(authContextSchema.parse(JSON.parse(row.auth))),
    status: row.status,
    runAt: toNumber(row.run_at),
    attempts: Number(row.attempts),
    maxAttempts: Number(row.max_attempts),
    lastError: row.last_error,
    key: row.unique_key,
    lockedBy: row.locked_by,
    lockedUntil: toNumberOrNull(row.locked_until),
    createdAt: toNumber(row.created_at),
    updatedAt: toNumber(row.updated_at),
    finishedAt: toNumberOrNull(row.finished_at),
  };
}
