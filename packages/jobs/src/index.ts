export { type BackoffOptions, backoffDelay } from "./backoff.js";
export { type CronEntry, checkCronEntries, createCronScheduler, nextOccurrence } from "./cron.js";
export { JobsError, type JobsErrorCode, jobsErrorCodes } from "./errors.js";
export type { Job } from "./job.js";
export {
  createQueueScheduler,
  type QueueScheduler,
  type ScheduledCallRequest,
} from "./job-scheduler.js";
export type { JobCounts, JobListOptions, JobPage } from "./list-jobs.js";
export {
  createJobQueue,
  type EnqueueRequest,
  type FailOptions,
  type JobQueue,
  type JobQueueOptions,
} from "./queue.js";
export {
  JOB_STATUSES,
  JOBS_TABLE,
  type JobStatus,
  type JobsMigrationsOptions,
  type JobsTable,
  type JobsTables,
  jobsMigrations,
} from "./tables.js";
export {
  createJobWorker,
  type JobWorker,
  type JobWorkerOptions,
  type WorkerTimers,
} from "./worker.js";
