import { JOB_STATUSES, type Job, type JobCounts, type JobStatus, JobsError } from "@svc/jobs";
import type { Request, RequestHandler, Response, Router } from "express";
import { userLink } from "./auth-pages.js";
import { badge, cellValue, countText, idText, timeCell } from "./cells.js";
import { renderTable, toolbar } from "./data-table.js";
import type { ShownError } from "./entity-views.js";
import { html, type SafeHTML } from "./html.js";
import { csrfField, errorBox, noticeBox, pagerLinks, renderPage, studioURL } from "./layout.js";
import { studioEvent } from "./studio-audit.js";
import { checkCsrfToken, cursorParam, queryParam, sendPage, sessionOf } from "./studio-http.js";
import { type StudioOptions, shownErrorOf } from "./studio-options.js";

const PAGE_SIZE = 50;

/** Fixed notices a redirect may ask for (`?done=`); nothing from the URL is echoed. */
const NOTICES: ReadonlyMap<string, string> = new Map([
  ["retried", "The job is pending again, with fresh attempts."],
  ["cancelled", "The job is cancelled."],
]);

function jobButtons(job: Job, csrfToken: string): SafeHTML {
  const retryable = job.status === "dead" || (job.status === "pending" && job.lastError !== null);
  const cancellable = job.status === "pending" || job.status === "dead";
  const button = (action: "retry" | "cancel", label: string): SafeHTML =>
    html`<form class="inline" method="post" action="${studioURL(["jobs", job.id, action])}">${csrfField(csrfToken)}<button type="submit">${label}</button></form>`;
  return html`${retryable && button("retry", "Retry")} ${cancellable && button("cancel", "Cancel")}`;
}

/** What the Jobs page says when the queue is empty: what jobs are and how to make one. */
const NO_JOBS = html`<div class="hint" role="note">
  <h2>No jobs yet</h2>
  <p>A job is a call of one of your mutations or actions that the server runs later, in the background: stored in the database, so it survives a restart, retried with backoff when it fails, and kept on the dead-letter list (status <code>dead</code>) when it keeps failing.</p>
  <p>Schedule one from a mutation or an action with <code>await ctx.scheduler.runAfter(60_000, "sendReminder", { todoId })</code> (or <code>runAt(date, …)</code>), or give a function a <code>cron</code> schedule. Its runs then show here, newest first, with <strong>Retry</strong> and <strong>Cancel</strong>.</p>
  <p><a href="/docs/functions/jobs">Scheduled and background jobs</a> in the docs.</p>
</div>`;

function renderJobsPage(input: {
  readonly jobs: readonly Job[];
  readonly counts: JobCounts | undefined;
  readonly status: string | undefined;
  readonly cursor: string | undefined;
  readonly nextCursor: string | null;
  readonly notice: string | undefined;
  readonly error: ShownError | undefined;
  readonly csrfToken: string;
}): SafeHTML {
  const { jobs, status, csrfToken, counts } = input;
  const filter = html`<form class="filter" method="get" action="${studioURL(["jobs"])}">
    <label>Status <select name="status">
      <option value="">(all)</option>
      ${JOB_STATUSES.map((candidate) => html`<option value="${candidate}" ${candidate === status && "selected"}>${candidate}${counts !== undefined && ` (${counts[candidate]})`}</option>`)}
    </select></label>
    <button type="submit">Filter</button>
  </form>`;
  const table = renderTable<Job>({
    columns: [
      { key: "id", label: "id", className: "nowrap", cell: (job) => idText(job.id) },
      { key: "name", label: "name", cell: (job) => html`<code>${job.name}</code>` },
      { key: "status", label: "status", cell: (job) => badge(job.status) },
      {
        key: "attempts",
        label: "attempts",
        className: "num",
        cell: (job) => `${job.attempts} / ${job.maxAttempts}`,
      },
      { key: "runAt", label: "run at", className: "nowrap", cell: (job) => timeCell(job.runAt) },
      { key: "created", label: "created", className: "nowrap", cell: (j) => timeCell(j.createdAt) },
      { key: "user", label: "as user", className: "nowrap", cell: (j) => userLink(j.auth.userId) },
      { key: "args", label: "args", cell: (job) => cellValue(job.args) },
      { key: "lastError", label: "last error", cell: (job) => cellValue(job.lastError) },
      {
        key: "actions",
        label: "",
        className: "actions",
        cell: (job) => jobButtons(job, csrfToken),
      },
    ],
    rows: jobs,
    rowId: (job) => job.id,
    empty:
      counts !== undefined && Object.values(counts).every((count) => count === 0)
        ? NO_JOBS
        : html`<p class="hint">No ${status ?? ""} jobs.</p>`,
  });
  const shown =
    counts === undefined
      ? undefined
      : status === undefined
        ? Object.values(counts).reduce((sum, count) => sum + count, 0)
        : counts[status as JobStatus];
  return renderPage({
    title: "Jobs",
    csrfToken,
    section: "Jobs",
    body: html`${input.notice !== undefined && noticeBox(input.notice)}
      ${input.error !== undefined && errorBox(input.error)}
      ${filter}
      ${shown !== undefined && toolbar({ total: countText(shown, Number.POSITIVE_INFINITY, "job") })}
      ${table}
      ${pagerLinks({ segments: ["jobs"], params: { status }, cursor: input.cursor, nextCursor: input.nextCursor })}`,
  });
}

/**
 * The jobs page: the queue newest first, filtered by status (`dead` is the
 * dead-letter list), with retry and cancel buttons that call the queue's
 * admin operations (the same as `POST /api/admin/jobs/<id>/retry|cancel`),
 * each recorded as a `StudioJob` audit event.
 */
export function registerJobPages(
  router: Router,
  options: StudioOptions,
  signedIn: readonly RequestHandler[],
): void {
  const { jobs } = options;

  async function sendJobs(
    req: Request,
    res: Response,
    outcome: { status: number; error?: ShownError },
  ): Promise<void> {
    const statusText = queryParam(req, "status", 32);
    const cursor = cursorParam(req);
    const done = queryParam(req, "done");
    let page: { jobs: readonly Job[]; nextCursor: string | null } = { jobs: [], nextCursor: null };
    let counts: JobCounts | undefined;
    let error = outcome.error;
    let status = outcome.status;
    try {
      [page, counts] = await Promise.all([
        jobs.list({ status: statusText as JobStatus | undefined, limit: PAGE_SIZE, cursor }),
        jobs.counts(),
      ]);
    } catch (listError) {
      const shown = shownErrorOf(listError);
      if (shown === null) throw listError;
      error = shown.error;
      status = shown.status;
    }
    sendPage(
      res,
      status,
      renderJobsPage({
        jobs: page.jobs,
        counts,
        status: statusText,
        cursor,
        nextCursor: page.nextCursor,
        notice: done === undefined ? undefined : NOTICES.get(done),
        error,
        csrfToken: sessionOf(res).csrfToken,
      }),
    );
  }

  router.get("/studio/jobs", ...signedIn, (req, res) => sendJobs(req, res, { status: 200 }));

  const change =
    (
      action: "retry" | "cancel",
      refusal: "JOB_NOT_RETRYABLE" | "JOB_NOT_CANCELLABLE",
      done: string,
    ): RequestHandler =>
    async (req, res) => {
      checkCsrfToken(req, res);
      const id = String(req.params.id);
      const changed = action === "retry" ? await jobs.retry(id) : await jobs.cancel(id);
      if (changed) {
        // After the change (the queue's own statement): a crash between the two loses the event.
        const job = await jobs.get(id);
        await options.auth.recordOperatorAudit(
          studioEvent(req, res, "StudioJob", { action, job_id: id, job: job?.name ?? null }),
        );
        res.redirect(303, studioURL(["jobs"], { done }));
        return;
      }
      const error = new JobsError((await jobs.get(id)) === null ? "JOB_NOT_FOUND" : refusal);
      await sendJobs(req, res, { status: error.status ?? 409, error });
    };

  router.post(
    "/studio/jobs/:id/retry",
    ...signedIn,
    change("retry", "JOB_NOT_RETRYABLE", "retried"),
  );
  router.post(
    "/studio/jobs/:id/cancel",
    ...signedIn,
    change("cancel", "JOB_NOT_CANCELLABLE", "cancelled"),
  );
}
