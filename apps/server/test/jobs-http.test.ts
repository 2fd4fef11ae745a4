import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { testDatabases } from "@svc/tooling/databases";
import { beforeEach, describe, expect, it } from "vitest";
import { appServerPerTest } from "./app-server.js";
import {
  type AuthTestServer,
  errorOf,
  post,
  readJSON,
  registerPassword,
  request,
} from "./auth-fixtures.js";
import { adminRequest, databaseEnv } from "./fixtures.js";
import { entity, OWNER, ownRowsPolicy, signInManifest, writeTestApp } from "./test-app.js";

// Durable jobs through the composed server, on every database:
// ctx.scheduler in a mutation (committed: the job runs as the scheduling
// user; rolled back: no job), queries refused at schedule time, and the
// admin routes (list, retry, cancel, their errors and their gate).

/** An app whose mutations schedule other mutations; Notes are owner-only. */
function writeApp(dir: string): string {
  const manifest = signInManifest("jobs-app", {
    entities: [entity("Note", { body: "string", ownerId: OWNER })],
    policies: [ownRowsPolicy("own notes", "Note")],
  });
  return writeTestApp(dir, manifest, {
    scheduleNote: `export default {
  type: "mutation",
  handler: async (ctx, args) => {
    await ctx.db.insert("Note", { body: "scheduled " + args.body });
    const jobId = await ctx.scheduler.runAfter(0, "writeNote", { body: args.body });
    if (args.fail) ctx.error("ROLLED_BACK", "The mutation failed after scheduling.");
    return { jobId };
  },
};
`,
    writeNote: `export default {
  type: "mutation",
  handler: async (ctx, args) => {
    if (args.body === "deny") ctx.error("DENIED", "This note is refused.", 403);
    return ctx.db.insert("Note", { body: args.body });
  },
};
`,
    scheduleLater: `export default {
  type: "action",
  handler: async (ctx) => ({ jobId: await ctx.scheduler.runAt(Date.UTC(2040, 0, 1), "writeNote", { body: "later" }) }),
};
`,
    scheduleQuery: `export default {
  type: "mutation",
  handler: async (ctx) => ctx.scheduler.runAfter(0, "myNotes", {}),
};
`,
    myNotes: `export default {
  type: "query",
  handler: async (ctx) => (await ctx.db.query("Note", { orderBy: { field: "body" } })).rows.map((note) => ({ body: note.body, ownerId: note.ownerId })),
};
`,
  });
}

/** Adds a function that runs every minute with the admin's rights (a Note owned by "cron"). */
function writeHeartbeat(dir: string): void {
  writeFileSync(
    join(dir, "functions", "heartbeat.mjs"),
    `export default {
  type: "mutation",
  cron: "* * * * *",
  handler: async (ctx) => ctx.db.insert("Note", { body: "beat", ownerId: "cron" }),
};
`,
  );
}

interface JobBody {
  readonly id: string;
  readonly name: string;
  readonly status: string;
  readonly attempts: number;
  readonly auth: { readonly userId: string | null };
  readonly lastError: string | null;
}

describe.each(testDatabases())("jobs through the server on $name", (database) => {
  const app = appServerPerTest(database, {
    writeApp,
    env: ({ dir, target }) => ({
      ...databaseEnv(target, { jobsFile: join(dir, "jobs.db") }),
      SVC_RATE_LIMIT: "off",
    }),
  });
  let server: AuthTestServer;

  beforeEach(() => {
    server = app.server;
  });

  async function job(id: string): Promise<JobBody> {
    const answer = await readJSON<JobBody>(adminRequest(server, "GET", `/api/admin/jobs/${id}`));
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    return answer.body;
  }

  /** Polls the admin API until the job reaches `status` (the worker runs on its own). */
  async function settled(id: string, status: string): Promise<JobBody> {
    await expect.poll(async () => (await job(id)).status, { timeout: 10_000 }).toBe(status);
    return job(id);
  }

  it("runs a function with cron on its schedule, each occurrence once, as the admin", async () => {
    writeHeartbeat(app.dir);
    server = await app.restart();
    const beats = async () => {
      const answer = await readJSON<{ jobs: JobBody[] }>(
        adminRequest(server, "GET", "/api/admin/jobs?limit=100"),
      );
      return answer.body.jobs.filter((listed) => listed.name === "heartbeat");
    };
    // The next minute's occurrence is enqueued once, not yet due on the frozen clock.
    await expect.poll(async () => (await beats()).map((beat) => beat.status)).toEqual(["pending"]);
    server.clock.advance(61_000);
    await expect
      .poll(async () => (await beats()).map((beat) => beat.status).sort(), { timeout: 10_000 })
      .toEqual(["pending", "succeeded"]);
    const ran = (await beats()).find((beat) => beat.status === "succeeded");
    expect(ran).toMatchObject({ attempts: 1, auth: { userId: null } });
  });

  it("runs a job scheduled in a committed mutation as the scheduling user, and never one from a rolled-back mutation", async () => {
    const ada = await registerPassword(server, "ada@example.com");
    const bob = await registerPassword(server, "bob@example.com");
    const scheduled = await readJSON<{ jobId: string }>(
      post(server, "/api/fn/scheduleNote", { body: "hello" }, { token: ada.token }),
    );
    expect(scheduled.status, JSON.stringify(scheduled.body)).toBe(200);
    const ran = await settled(scheduled.body.jobId, "succeeded");
    expect(ran).toMatchObject({ name: "writeNote", attempts: 1, auth: { userId: ada.user_id } });
    // The job's insert passed the policy as Ada and was stamped with her id.
    const notes = await readJSON(post(server, "/api/fn/myNotes", {}, { token: ada.token }));
    expect(notes.body).toEqual([
      { body: "hello", ownerId: ada.user_id },
      { body: "scheduled hello", ownerId: ada.user_id },
    ]);
    expect(
      (await readJSON(post(server, "/api/fn/myNotes", {}, { token: bob.token }))).body,
    ).toEqual([]);

    const failed = await errorOf(
      post(server, "/api/fn/scheduleNote", { body: "gone", fail: true }, { token: ada.token }),
    );
    expect(failed).toMatchObject({ status: 400, code: "ROLLED_BACK" });
    const list = await readJSON<{ jobs: JobBody[] }>(
      adminRequest(server, "GET", "/api/admin/jobs"),
    );
    expect(list.body.jobs.map((listed) => listed.id)).toEqual([scheduled.body.jobId]);
  });

  it("refuses to schedule a query", async () => {
    const ada = await registerPassword(server, "ada@example.com");
    const refused = await errorOf(post(server, "/api/fn/scheduleQuery", {}, { token: ada.token }));
    expect(refused).toMatchObject({ status: 500, code: "WRONG_FUNCTION_TYPE" });
    expect(refused.message).toContain("myNotes is a query");
  });

  it("lists, retries and cancels jobs for the admin token only", async () => {
    const ada = await registerPassword(server, "ada@example.com");
    // A job refused with a client error goes dead at once (no retry could help).
    const denied = await readJSON<{ jobId: string }>(
      post(server, "/api/fn/scheduleNote", { body: "deny" }, { token: ada.token }),
    );
    const dead = await settled(denied.body.jobId, "dead");
    expect(dead).toMatchObject({ attempts: 1, lastError: expect.stringContaining("refused") });
    // Newest first: the next job is created a second later on the frozen clock.
    server.clock.advance(1000);
    const later = await readJSON<{ jobId: string }>(
      post(server, "/api/fn/scheduleLater", {}, { token: ada.token }),
    );
    expect(later.status, JSON.stringify(later.body)).toBe(200);

    // The gate: nobody, then a user.
    expect(await errorOf(request(server, "GET", "/api/admin/jobs"))).toMatchObject({
      status: 401,
      code: "AUTH_REQUIRED",
    });
    for (const [method, path] of [
      ["GET", "/api/admin/jobs"],
      ["POST", `/api/admin/jobs/${dead.id}/retry`],
      ["POST", `/api/admin/jobs/${later.body.jobId}/cancel`],
    ] as const) {
      expect(await errorOf(request(server, method, path, { token: ada.token }))).toMatchObject({
        status: 403,
        code: "ADMIN_REQUIRED",
      });
    }

    const deadList = await readJSON<{ jobs: JobBody[]; next_cursor: string | null }>(
      adminRequest(server, "GET", "/api/admin/jobs?status=dead"),
    );
    expect(deadList.body).toMatchObject({ jobs: [{ id: dead.id }], next_cursor: null });
    const paged = await readJSON<{ jobs: JobBody[]; next_cursor: string }>(
      adminRequest(server, "GET", "/api/admin/jobs?limit=1"),
    );
    expect(paged.body.jobs.map((listed) => listed.id)).toEqual([later.body.jobId]);
    const rest = await readJSON<{ jobs: JobBody[] }>(
      adminRequest(server, "GET", `/api/admin/jobs?limit=1&cursor=${paged.body.next_cursor}`),
    );
    expect(rest.body.jobs.map((listed) => listed.id)).toEqual([dead.id]);
    expect(await errorOf(adminRequest(server, "GET", "/api/admin/jobs?status=nope"))).toMatchObject(
      { status: 400, code: "INVALID_QUERY" },
    );

    // Retry: the dead job runs again with fresh attempts (and is refused again).
    const retried = await readJSON<JobBody>(
      adminRequest(server, "POST", `/api/admin/jobs/${dead.id}/retry`),
    );
    expect(retried.status).toBe(200);
    expect(retried.body.attempts).toBe(0);
    expect(await settled(dead.id, "dead")).toMatchObject({ attempts: 1 });

    // Cancel: a pending job, once; then the errors.
    const cancelled = await readJSON<JobBody>(
      adminRequest(server, "POST", `/api/admin/jobs/${later.body.jobId}/cancel`),
    );
    expect(cancelled.body).toMatchObject({ status: "cancelled" });
    expect(
      await errorOf(adminRequest(server, "POST", `/api/admin/jobs/${later.body.jobId}/cancel`)),
    ).toMatchObject({ status: 409, code: "JOB_NOT_CANCELLABLE" });
    expect(
      await errorOf(adminRequest(server, "POST", `/api/admin/jobs/${later.body.jobId}/retry`)),
    ).toMatchObject({ status: 409, code: "JOB_NOT_RETRYABLE" });
    expect(
      await errorOf(adminRequest(server, "POST", `/api/admin/jobs/${"0".repeat(32)}/retry`)),
    ).toMatchObject({ status: 404, code: "JOB_NOT_FOUND" });
  });
});
