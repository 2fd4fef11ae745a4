import { commonError, commonErrors, defineErrors, type ErrorTable } from "@svc/schema";

/**
 * Every failure @svc/jobs reports, keyed by a stable code. Wire errors have
 * a `status` (sent to admin clients as `{ error: { code, message } }`);
 * local errors (`INVALID_CRON`, `INVALID_JOB`) have none: they are
 * programmer or configuration mistakes, thrown where the mistake is made.
 */
export const jobsErrorCodes = {
  ...commonError("AUTH_REQUIRED", "This endpoint needs the admin token."),
  ...commonErrors("ADMIN_REQUIRED"),
  JOB_NOT_FOUND: { status: 404, message: "No job with this id exists." },
  JOB_NOT_RETRYABLE: {
    status: 409,
    message: "Only a dead job, or a failed one waiting for its next attempt, can be retried.",
  },
  JOB_NOT_CANCELLABLE: {
    status: 409,
    message: "Only a pending or dead job can be cancelled (this one is running or finished).",
  },
  ...commonError(
    "INVALID_QUERY",
    "status must be pending, running, succeeded, dead or cancelled, limit an integer from 1 to 1000, and cursor one this API returned.",
  ),
  INVALID_CRON: { status: undefined, message: "A cron entry is invalid." },
  INVALID_JOB: { status: undefined, message: "A job request is invalid." },
} as const satisfies ErrorTable;

/** A stable @svc/jobs error code. */
export type JobsErrorCode = keyof typeof jobsErrorCodes;

/**
 * The single error class of @svc/jobs; tell cases apart by `code`. Wire
 * errors carry `status` and `expose: true`; `INVALID_CRON` and `INVALID_JOB`
 * are local (`expose: false`).
 *
 * @example
 * throw new JobsError("JOB_NOT_FOUND");
 */
export class JobsError extends defineErrors("JobsError", jobsErrorCodes) {}
