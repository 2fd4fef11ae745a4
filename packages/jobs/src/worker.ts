import { randomBytes } from "node:crypto";
import { hostname } from "node:os";
import { type CronEntry, createCronScheduler } from "./cron.js";
import type { Job } from "./job.js";
import type { JobQueue } from "./queue.js";
import { withSpan } from "./tracing.js";

/** The timer functions a worker uses; inject fakes to drive it in tests. */
export interface WorkerTimers {
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

/** Options of `createJobWorker`. */
export interface JobWorkerOptions {
  readonly queue: JobQueue;
  /** Runs one job; resolving completes it, throwing records a failed attempt. */
  run(job: Job): Promise<void>;
  /** Jobs run at once by this worker. Default 1. */
  readonly concurrency?: number;
  /** Time between polls when the queue has nothing due, in ms. Default 1000. */
  readonly pollMs?: number;
  /** Names this worker in leases. Default `<host>:<pid>:<random>`. */
  readonly workerId?: string;
  /** Recurring jobs this worker keeps enqueued (every server may list the same ones). */
  readonly cron?: readonly CronEntry[];
  /** False for an error no retry can fix (sends the job to the dead-letter list). Default: always true. */
  readonly isRetryable?: (error: unknown, job: Job) => boolean;
  /** Called with failures of the worker itself (a poll, a lease update). Default `console.error`. */
  readonly onError?: (error: unknown) => void;
  /**
   * How long succeeded and cancelled jobs are kept, in ms; older ones are
   * deleted about once an hour. Default seven days; 0 keeps them.
   */
  readonly retentionMs?: number;
  /** Unix ms, for cron and pruning. Default `Date.now` (the queue's clock decides leases). */
  readonly now?: () => number;
  /** Default the global `setTimeout` / `clearTimeout` (unref'd). */
  readonly timers?: WorkerTimers;
}

/** A polling worker over a `JobQueue`. */
export interface JobWorker {
  readonly id: string;
  /** Starts polling. */
  start(): void;
  /** Polls now instead of at the next interval (after a job was scheduled, say). */
  wake(): void;
  /**
   * One poll: keeps cron occurrences enqueued, claims what it has room for
   * and starts those jobs; resolves with how many it started (not finished).
   */
  tick(): Promise<number>;
  /** Resolves when no job of this worker is running. */
  idle(): Promise<void>;
  /**
   * Stops polling and waits up to `drainMs` (default 10 000) for running
   * jobs. A job still running afterwards keeps its lease and is claimed
   * again by another worker once it has passed.
   */
  stop(options?: { readonly drainMs?: number }): Promise<void>;
}

const PRUNE_EVERY_MS = 3_600_000;

const defaultTimers: WorkerTimers = {
  setTimeout(fn, ms) {
    const handle = setTimeout(fn, ms);
    handle.unref();
    return handle;
  },
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

/**
 * Creates a worker that polls `queue`, runs each claimed job through `run`,
 * and records the outcome: success is written before anything else happens,
 * so a finished job never runs again; a process killed mid-job leaves its
 * lease to expire and another worker runs the job (at-least-once). While a
 * job runs, its lease is extended every third of `queue.leaseMs`.
 *
 * @example
 * const worker = createJobWorker({ queue, run: (job) => handlers[job.name](job.args) });
 * worker.start();
 * process.on("SIGTERM", () => worker.stop({ drainMs: 10_000 }));
 */
export function createJobWorker(options: JobWorkerOptions): JobWorker {
  const { queue } = options;
  const id = options.workerId ?? `${hostname()}:${process.pid}:${randomBytes(4).toString("hex")}`;
  const concurrency = Math.max(1, options.concurrency ?? 1);
  const pollMs = options.pollMs ?? 1000;
  const timers = options.timers ?? defaultTimers;
  const now = options.now ?? Date.now;
  const onError = options.onError ?? ((error) => console.error("svc: jobs:", error));
  const retentionMs = options.retentionMs ?? 7 * 24 * 3_600_000;
  const cron =
    options.cron !== undefined && options.cron.length > 0
      ? createCronScheduler(queue, options.cron)
      : undefined;
  const running = new Map<string, Promise<void>>();
  let idleWaiters: (() => void)[] = [];
  let started = false;
  let stopped = false;
  let timer: unknown;
  let polling: Promise<number> | undefined;
  let lastPrune = Number.NEGATIVE_INFINITY;

  function settleIdle(): void {
    if (running.size > 0) return;
    const waiters = idleWaiters;
    idleWaiters = [];
    for (const resolve of waiters) resolve();
  }

  /** Extends the lease while the job runs, every third of it. */
  function keepLease(job: Job): () => void {
    let handle: unknown;
    let done = false;
    const every = Math.max(1, Math.floor(queue.leaseMs / 3));
    const schedule = (): void => {
      handle = timers.setTimeout(() => {
        queue.extend(job.id, id).then(
          () => {
            if (!done) schedule();
          },
          (error: unknown) => {
            onError(error);
            if (!done) schedule();
          },
        );
      }, every);
    };
    schedule();
    return () => {
      done = true;
      timers.clearTimeout(handle);
    };
  }

  async function execute(job: Job): Promise<void> {
    const release = keepLease(job);
    try {
      let failure: { error: unknown } | undefined;
      try {
        // Each run is the root of its own trace (no request is waiting for it).
        await withSpan(
          `job ${job.name}`,
          { "svc.job.id": job.id, "svc.job.name": job.name, "svc.job.attempt": job.attempts },
          () => options.run(job),
        );
      } catch (error) {
        failure = { error };
      }
      release();
      if (failure === undefined) await queue.complete(job.id, id);
      else {
        const retry = options.isRetryable?.(failure.error, job) ?? true;
        await queue.fail(job.id, id, failure.error, { retry });
      }
    } catch (error) {
      // The outcome could not be recorded: the lease runs out and the job
      // is claimed again (at-least-once).
      onError(error);
    } finally {
      release();
    }
  }

  async function poll(): Promise<number> {
    const at = now();
    if (cron !== undefined) await cron(at);
    if (retentionMs > 0 && at - lastPrune >= PRUNE_EVERY_MS) {
      lastPrune = at;
      await queue.prune(at - retentionMs);
    }
    const room = concurrency - running.size;
    if (room <= 0 || stopped) return 0;
    const jobs = await queue.claim(id, room);
    for (const job of jobs) {
      const done = execute(job).finally(() => {
        running.delete(job.id);
        settleIdle();
        // A slot freed: look for more work at once when polling.
        if (started && !stopped) wake();
      });
      running.set(job.id, done);
    }
    return jobs.length;
  }

  function tick(): Promise<number> {
    // One poll at a time; a second caller shares it.
    polling ??= poll().finally(() => {
      polling = undefined;
    });
    return polling;
  }

  function scheduleNext(ms: number): void {
    if (stopped) return;
    timers.clearTimeout(timer);
    timer = timers.setTimeout(() => {
      tick().then(
        (count) => scheduleNext(count > 0 && running.size < concurrency ? 0 : pollMs),
        (error: unknown) => {
          onError(error);
          scheduleNext(pollMs);
        },
      );
    }, ms);
  }

  function wake(): void {
    if (started && !stopped) scheduleNext(0);
  }

  return {
    id,
    start() {
      if (started) return;
      started = true;
      scheduleNext(0);
    },
    wake,
    tick,
    idle: () =>
      running.size === 0 ? Promise.resolve() : new Promise((resolve) => idleWaiters.push(resolve)),
    async stop(stopOptions = {}) {
      stopped = true;
      timers.clearTimeout(timer);
      await polling?.catch(() => undefined);
      if (running.size === 0) return;
      let drainTimer: unknown;
      await Promise.race([
        Promise.allSettled(running.values()),
        new Promise<void>((resolve) => {
          drainTimer = timers.setTimeout(resolve, stopOptions.drainMs ?? 10_000);
        }),
      ]);
      timers.clearTimeout(drainTimer);
    },
  };
}
