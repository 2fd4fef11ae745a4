import { getCaller } from "@svc/schema/http";
import express, { type Request, type Router } from "express";
import { JobsError } from "../errors.js";
import type { JobQueue } from "../queue.js";
import type { JobStatus } from "../tables.js";

/** The admin routes' prefix. */
export const JOBS_ADMIN_PATH = "/api/admin/jobs";

function requireAdmin(req: Request): void {
  const caller = getCaller(req);
  if (!caller.isAdmin) {
    throw new JobsError(caller.via === null ? "AUTH_REQUIRED" : "ADMIN_REQUIRED");
  }
}

function queryString(value: unknown): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "string") throw new JobsError("INVALID_QUERY");
  return value;
}

function queryLimit(value: unknown): number | undefined {
  const text = queryString(value);
  if (text === undefined) return undefined;
  if (!/^\d{1,4}$/.test(text)) throw new JobsError("INVALID_QUERY");
  return Number(text);
}

/**
 * Tells a refused retry or cancel apart: no such job (404) or a job in the
 * wrong state (409 with `code`).
 */
async function refuse(
  queue: JobQueue,
  id: string,
  code: "JOB_NOT_RETRYABLE" | "JOB_NOT_CANCELLABLE",
): Promise<never> {
  const job = await queue.get(id);
  throw new JobsError(job === null ? "JOB_NOT_FOUND" : code);
}

/**
 * The job admin routes (admin token only; anyone else gets 401
 * `AUTH_REQUIRED` or 403 `ADMIN_REQUIRED`):
 *
 * - `GET /api/admin/jobs?status=&limit=&cursor=`: `{jobs, next_cursor}`,
 *   newest first; `status=dead` is the dead-letter list.
 * - `GET /api/admin/jobs/<id>`: one job, or 404 `JOB_NOT_FOUND`.
 * - `POST /api/admin/jobs/<id>/retry`: a dead job (or a failed one waiting
 *   for its next attempt) becomes pending now with fresh attempts; 409
 *   `JOB_NOT_RETRYABLE` otherwise.
 * - `POST /api/admin/jobs/<id>/cancel`: a pending or dead job becomes
 *   cancelled; 409 `JOB_NOT_CANCELLABLE` when it is running or finished.
 *
 * Mount it after auth-core's `authenticate` (it reads `getCaller(req)`);
 * errors go to the app's error handler (`toErrorResponse`).
 *
 * @example
 * app.use(authenticate({ resolvers }));
 * app.use(createJobsRouter(queue));
 */
export function createJobsRouter(queue: JobQueue): Router {
  const router = express.Router({ caseSensitive: true });
  router.get(JOBS_ADMIN_PATH, async (req, res) => {
    requireAdmin(req);
    const status = queryString(req.query.status);
    const page = await queue.list({
      status: status as JobStatus | undefined,
      limit: queryLimit(req.query.limit),
      cursor: queryString(req.query.cursor),
    });
    res.json({ jobs: page.jobs, next_cursor: page.nextCursor });
  });
  router.get(`${JOBS_ADMIN_PATH}/:id`, async (req, res) => {
    requireAdmin(req);
    const job = await queue.get(String(req.params.id));
    if (job === null) throw new JobsError("JOB_NOT_FOUND");
    res.json(job);
  });
  router.post(`${JOBS_ADMIN_PATH}/:id/retry`, async (req, res) => {
    requireAdmin(req);
    const id = String(req.params.id);
    if (!(await queue.retry(id))) await refuse(queue, id, "JOB_NOT_RETRYABLE");
    res.json(await queue.get(id));
  });
  router.post(`${JOBS_ADMIN_PATH}/:id/cancel`, async (req, res) => {
    requireAdmin(req);
    const id = String(req.params.id);
    if (!(await queue.cancel(id))) await refuse(queue, id, "JOB_NOT_CANCELLABLE");
    res.json(await queue.get(id));
  });
  return router;
}
