import { JOB_STATUSES, type Job, type JobStatus, JobsError } from "@svc/jobs";
import type { Request, RequestHandler, Response, Router } from "express";
import type { ShownError } from "./entity-views.js";
import { html, type SafeHTML } from "./html.js";
import {
  cellValue,
  csrfField,
  errorBox,
  noticeBox,
  pagerLinks,
  renderPage,
  studioURL,
  timeText,
} from "./layout.js";
import { checkCsrfToken, queryParam, sendPage, sessionOf } from "./studio-http.js";
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

function renderJobsPage(input: {
  readonly jobs: readonly Job[];
  readonly status: string | undefined;
  readonly cursor: string | undefined;
  readonly nextCursor: string | null;
  readonly notice: string | undefined;
  readonly error: ShownError | undefined;
  readonly csrfToken: string;
}): SafeHTML {
  const { jobs, status, csrfToken } = input;
  const filter = html`<form class="filter" method="get" action="${studioURL(["jobs"])}">
    <label>Status <select name="status">
      <option value="">(all)</option>
      ${JOB_STATUSES.map((candidate) => html`<option value="${candidate}" ${candidate === status && "selected"}>${candidate}</option>`)}
    </select></label>
    <button type="submit">Filter</button>
  </form>`;
  const rows = jobs.map(
    (job) => html`<tr data-id="${job.id}">
      <td><code>${job.id}</code></td>
      <td>${job.name}</td>
      <td data-field="status">${job.status}</td>
      <td>${job.attempts} / ${job.maxAttempts}</td>
      <td>${timeText(job.runAt)}</td>
      <td>${timeText(job.createdAt)}</td>
      <td>${cellValue(job.auth.userId)}</td>
      <td>${cellValue(job.args)}</td>
      <td>${cellValue(job.lastError)}</td>
      <td>${jobButtons(job, csrfToken)}</td>
    </tr>`,
  );
  return renderPage({
    title: "Jobs",
    csrfToken,
    body: html`${input.notice !== undefined && noticeBox(input.notice)}
      ${input.error !== undefined && errorBox(input.error)}
      ${filter}
      ${
        jobs.length === 0
          ? html`<p>No jobs.</p>`
          : html`<table>
        <thead><tr><th>id</th><th>name</th><th>status</th><th>attempts</th><th>run at</th><th>created</th><th>as user</th><th>args</th><th>last error</th><th></th></tr></thead>
        <tbody>${rows}</tbody></table>`
      }
      ${pagerLinks({ segments: ["jobs"], params: { status }, cursor: input.cursor, nextCursor: input.nextCursor })}`,
  });
}

/**
 * The jobs page: the queue newest first, filtered by status (`dead` is the
 * dead-letter list), with retry and cancel buttons that call the queue's
 * admin operations (the same as `POST /api/admin/jobs/<id>/retry|cancel`).
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
    const statusText = queryParam(req, "status");
    const cursor = queryParam(req, "cursor");
    const done = queryParam(req, "done");
    let page: { jobs: readonly Job[]; nextCursor: string | null } = { jobs: [], nextCursor: null };
    let error = outcome.error;
    let status = outcome.status;
    try {
      page = await jobs.list({
        status: statusText as JobStatus | undefined,
        limit: PAGE_SIZE,
        cursor,
      });
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
