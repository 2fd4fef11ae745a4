import type { AuthContext } from "@svc/schema";
import type { FrameworkTransaction } from "@svc/store";
import { FunctionsError } from "./errors.js";

// The kinds of callable function, spelled here rather than imported from
// define-function.ts, whose contexts import this module.
type FunctionType = "query" | "mutation" | "action";

/** The kysely transaction a mutation runs in (the store's framework transaction's `db`). */
export type SchedulerTransaction = FrameworkTransaction["db"];

/** One function call to run later, as handed to a `JobScheduler`. */
export interface ScheduledCall {
  /** The mutation or action to run. */
  readonly name: string;
  readonly args: Readonly<Record<string, unknown>>;
  /** When to run it, unix ms. */
  readonly runAt: number;
  /** The scheduling caller; the call runs with this identity. */
  readonly auth: AuthContext;
}

/**
 * Where `ctx.scheduler` puts calls: a durable queue (@svc/jobs'
 * `createQueueScheduler` implements it). `trx` is the mutation's
 * transaction, so a call scheduled there commits or rolls back with the
 * mutation; it is undefined in actions (written at once).
 */
export interface JobScheduler {
  /** Stores the call; resolves with the job id. */
  schedule(trx: SchedulerTransaction | undefined, call: ScheduledCall): Promise<string>;
  /** Cancels a job not yet running; false when there is none to cancel. */
  cancel(trx: SchedulerTransaction | undefined, id: string): Promise<boolean>;
  /**
   * Called after a transaction in which calls were scheduled has committed
   * (the moment a worker can see them: wake it here). Optional.
   */
  committed?(): void;
}

/**
 * `ctx.scheduler` of mutations and actions: runs a mutation or action later,
 * durably, with the caller's identity (the `auth` it was scheduled with).
 * In a mutation, scheduling is part of its transaction: if the mutation
 * throws, nothing was scheduled.
 */
export interface SchedulerContext {
  /**
   * Runs function `name` after `delayMs` milliseconds (0: as soon as a
   * worker is free); resolves with the job id.
   *
   * @example
   * ```ts
   * await ctx.scheduler.runAfter(60_000, "sendReminder", { todoId: todo.id });
   * ```
   */
  runAfter(
    delayMs: number,
    name: string,
    args?: Readonly<Record<string, unknown>>,
  ): Promise<string>;
  /** Runs function `name` at `when` (a `Date` or unix ms); a past time runs as soon as possible. */
  runAt(
    when: Date | number,
    name: string,
    args?: Readonly<Record<string, unknown>>,
  ): Promise<string>;
  /** Cancels a scheduled job that has not started; resolves false when there is none to cancel. */
  cancel(id: string): Promise<boolean>;
}

/** What the runner tells the scheduler context about a target function. */
export interface ScheduleTarget {
  /** The function's type, or undefined when no function has this name. */
  typeOf(name: string): FunctionType | undefined;
  /** Validates `args` for `name` the way a call would (`INVALID_ARGS`). */
  validate(name: string, args: unknown): Record<string, unknown>;
}

const MAX_DELAY_MS = 10 * 366 * 24 * 3_600_000;

function checkTarget(target: ScheduleTarget, name: string, args: unknown): Record<string, unknown> {
  const type = target.typeOf(name);
  if (type === undefined) {
    throw new FunctionsError("FUNCTION_NOT_FOUND", {
      message: `ctx.scheduler: no function named ${JSON.stringify(name)} exists.`,
    });
  }
  if (type === "query") {
    throw new FunctionsError("WRONG_FUNCTION_TYPE", {
      message: `ctx.scheduler: ${name} is a query; only mutations and actions can be scheduled.`,
    });
  }
  return target.validate(name, args ?? {});
}

/** A time `ctx.scheduler` cannot use: not a number, negative delay, or over ten years ahead. */
function invalidSchedule(): FunctionsError {
  return new FunctionsError("INVALID_SCHEDULE");
}

/** `ctx.scheduler` on a runner created without a `scheduler`. */
function schedulerUnavailable(): FunctionsError {
  return new FunctionsError("SCHEDULER_UNAVAILABLE");
}

function checkTime(runAt: number, now: number): number {
  if (typeof runAt !== "number" || !Number.isFinite(runAt) || runAt - now > MAX_DELAY_MS) {
    throw invalidSchedule();
  }
  return Math.round(runAt);
}

/**
 * Builds `ctx.scheduler` for one call. A query target rejects with
 * `WRONG_FUNCTION_TYPE`, an unknown one with `FUNCTION_NOT_FOUND`, bad
 * arguments with `INVALID_ARGS` (all at schedule time), a bad time with
 * `INVALID_SCHEDULE` (500); without a configured scheduler every method
 * rejects with `SCHEDULER_UNAVAILABLE` (501).
 */
export function createSchedulerContext(input: {
  readonly scheduler: JobScheduler | undefined;
  readonly trx: SchedulerTransaction | undefined;
  readonly auth: AuthContext;
  readonly target: ScheduleTarget;
  readonly now: () => number;
  /** Called after each successful schedule. */
  readonly onScheduled?: () => void;
}): SchedulerContext {
  const { scheduler, trx, auth, target, now } = input;
  const schedule = async (runAt: number, name: string, args: unknown): Promise<string> => {
    if (scheduler === undefined) throw schedulerUnavailable();
    const at = now();
    const checked = checkTarget(target, name, args);
    const id = await scheduler.schedule(trx, {
      name,
      args: checked,
      runAt: checkTime(runAt, at),
      auth,
    });
    input.onScheduled?.();
    return id;
  };
  return Object.freeze({
    runAfter: (delayMs: number, name: string, args?: Readonly<Record<string, unknown>>) =>
      typeof delayMs !== "number" || delayMs < 0
        ? Promise.reject(invalidSchedule())
        : schedule(now() + delayMs, name, args),
    runAt: (when: Date | number, name: string, args?: Readonly<Record<string, unknown>>) =>
      schedule(when instanceof Date ? when.getTime() : when, name, args),
    async cancel(id: string) {
      if (scheduler === undefined) throw schedulerUnavailable();
      if (typeof id !== "string" || id === "") return false;
      return scheduler.cancel(trx, id);
    },
  });
}
