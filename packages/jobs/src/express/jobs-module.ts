import type { SvcModule, SvcRuntime } from "@svc/store";
import type { IRouter } from "express";
import { createQueueScheduler, type QueueScheduler } from "../job-scheduler.js";
import { createJobQueue, type JobQueue, type JobQueueOptions } from "../queue.js";
import { jobsMigrations } from "../tables.js";
import { createJobWorker, type JobWorker, type JobWorkerOptions } from "../worker.js";
import { createJobsRouter } from "./jobs-router.js";

/** The worker's settings, known only once what runs the jobs exists. */
export type JobsWorkerSettings = Omit<JobWorkerOptions, "queue" | "now">;

/** What `jobsModule` needs beside the runtime. */
export interface JobsModuleOptions extends Omit<JobQueueOptions, "db" | "dialect" | "now"> {
  /**
   * The worker, asked for at `start` (so the function runner the jobs call
   * can be built from this module's `scheduler` first); no worker when
   * undefined: the queue is still filled, another process may drain it.
   */
  readonly worker?: () => JobsWorkerSettings;
}

/** The job queue as a module. */
export interface JobsModule extends SvcModule<IRouter> {
  readonly queue: JobQueue;
  /** For @svc/functions' `ctx.scheduler`: enqueues in the caller's transaction and wakes the worker. */
  readonly scheduler: QueueScheduler;
}

/**
 * The durable job queue built from the shared runtime: its table, the
 * `/api/admin/jobs` routes, and a worker that starts with the server and,
 * at close, lets running jobs finish for up to the drain time (a job still
 * running keeps its lease for another server).
 */
export function jobsModule(runtime: SvcRuntime, options: JobsModuleOptions = {}): JobsModule {
  const { worker: workerSettings, ...queueOptions } = options;
  const queue = createJobQueue({
    ...queueOptions,
    db: runtime.db,
    dialect: runtime.dialect,
    now: runtime.now,
  });
  let worker: JobWorker | undefined;
  return {
    name: "@svc/jobs",
    queue,
    scheduler: createQueueScheduler(queue, { onScheduled: () => worker?.wake() }),
    migrations: [jobsMigrations({ schema: queueOptions.schema })],
    routes: (app) => app.use(createJobsRouter(queue)),
    start() {
      if (workerSettings === undefined) return;
      const settings = workerSettings();
      worker = createJobWorker({
        onError: (error) => runtime.log.error({ err: error }, "jobs: worker failed"),
        ...settings,
        queue,
        now: runtime.now,
      });
      worker.start();
    },
    reset: () => queue.clear(),
    async close({ drainMs }) {
      await worker?.stop({ drainMs });
    },
  };
}
