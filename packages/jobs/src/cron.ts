import { type AuthContext, adminAuth } from "@svc/schema";
import { CronExpressionParser } from "cron-parser";
import { JobsError } from "./errors.js";
import type { JobQueue } from "./queue.js";

/** A recurring job. */
export interface CronEntry {
  /** Names the schedule; part of each occurrence's dedup key, so keep it stable. */
  readonly name: string;
  /** A cron expression: five fields (minute first) or six (seconds first), e.g. `*\/5 * * * *`. */
  readonly schedule: string;
  /** The job to enqueue (for svc servers, a mutation or action name). */
  readonly fn: string;
  readonly args?: Readonly<Record<string, unknown>>;
  /** The identity the job runs with. Default the admin token's. */
  readonly auth?: AuthContext;
  /** The time zone the expression is read in. Default UTC. */
  readonly tz?: string;
}

const CRON_NAME = /^[A-Za-z0-9_.:-]{1,100}$/;

/** Checks entries once (expression, time zone, unique names); throws `INVALID_CRON` naming the entry. */
export function checkCronEntries(entries: readonly CronEntry[]): void {
  const seen = new Set<string>();
  for (const entry of entries) {
    if (!CRON_NAME.test(entry.name)) {
      throw new JobsError("INVALID_CRON", {
        message: `Cron entry name ${JSON.stringify(entry.name)} must be 1-100 letters, digits or _.:-.`,
      });
    }
    if (seen.has(entry.name)) {
      throw new JobsError("INVALID_CRON", {
        message: `Two cron entries are named ${entry.name}.`,
      });
    }
    seen.add(entry.name);
    try {
      nextOccurrence(entry, 0);
    } catch (cause) {
      throw new JobsError("INVALID_CRON", {
        message: `Cron entry ${entry.name} has an invalid schedule ${JSON.stringify(entry.schedule)}.`,
        cause,
      });
    }
  }
}

/** The first occurrence of `entry` strictly after `after` (unix ms). */
export function nextOccurrence(entry: CronEntry, after: number): number {
  const expression = CronExpressionParser.parse(entry.schedule, {
    currentDate: new Date(after),
    tz: entry.tz ?? "UTC",
    strict: false,
  });
  return expression.next().getTime();
}

/**
 * Keeps each entry's next occurrence enqueued, ahead of time, under the key
 * `cron:<name>:<occurrence ms>`: every server computes the same occurrence
 * and the unique key stores it once, so several servers never double it.
 * An occurrence missed while every server was down is not made up (the one
 * already enqueued runs late, once).
 */
export function createCronScheduler(
  queue: JobQueue,
  entries: readonly CronEntry[],
): (now: number) => Promise<void> {
  checkCronEntries(entries);
  // The occurrence each entry last enqueued here; saves a write per poll.
  const enqueued = new Map<string, number>();
  return async (now) => {
    for (const entry of entries) {
      const next = nextOccurrence(entry, now);
      if (enqueued.get(entry.name) === next) continue;
      await queue.enqueue(undefined, {
        name: entry.fn,
        args: entry.args ?? {},
        runAt: next,
        auth: entry.auth ?? adminAuth,
        key: `cron:${entry.name}:${next}`,
      });
      enqueued.set(entry.name, next);
    }
  };
}
