import { adminAuth, createAuthContext } from "@svc/schema";
import { matchTarget, testDatabases } from "@svc/tooling/databases";
import { sql } from "kysely";
import { describe, expect, it } from "vitest";
import { createJobQueue, createJobWorker, type Job, JobsError } from "../src/index.js";
import { JOBS_SCHEMA, useJobsFixture } from "./fixture.js";

const alice = createAuthContext({ userId: "alice", via: "session", sessionId: "s1" });

describe.each(testDatabases())("the job queue on $name", (database) => {
  const fixture = useJobsFixture(database, {
    backoff: { baseMs: 1000, maxMs: 60_000 },
    leaseMs: 30_000,
  });

  it("writes a job in the caller's transaction: committed it exists, rolled back it never does", async () => {
    const { store, queue } = fixture();
    const kept = await store.frameworkTransaction(alice, async ({ entities, db }) => {
      await entities.insert("Note", { body: "kept" });
      return queue.enqueue(db, { name: "notify", args: { n: 1 }, auth: alice });
    });
    let lost: string | undefined;
    await expect(
      store.frameworkTransaction(alice, async ({ entities, db }) => {
        await entities.insert("Note", { body: "lost" });
        lost = await queue.enqueue(db, { name: "notify", args: { n: 2 }, auth: alice });
        throw new Error("roll back");
      }),
    ).rejects.toThrow("roll back");
    expect(lost).toMatch(/^[0-9a-f]{32}$/);
    expect(await queue.get(lost ?? "")).toBeNull();
    const job = await queue.get(kept);
    expect(job).toMatchObject({ name: "notify", args: { n: 1 }, status: "pending", attempts: 0 });
    expect(job?.auth).toEqual(alice);
    expect((await queue.list()).jobs.map((listed) => listed.id)).toEqual([kept]);
  });

  it("claims only due jobs, oldest first, and never the same job twice", async () => {
    const { queue } = fixture();
    const at = fixture().clock;
    const later = await queue.enqueue(undefined, { name: "b", runAt: at + 2000, auth: alice });
    const first = await queue.enqueue(undefined, { name: "a", runAt: at - 10, auth: alice });
    const second = await queue.enqueue(undefined, { name: "a", runAt: at, auth: alice });
    const claimed = await queue.claim("w1", 10);
    expect(claimed.map((job) => job.id)).toEqual([first, second]);
    expect(claimed[0]).toMatchObject({ status: "running", attempts: 1, lockedBy: "w1" });
    expect(await queue.claim("w2", 10)).toEqual([]);
    fixture().clock += 2000;
    expect((await queue.claim("w2", 10)).map((job) => job.id)).toEqual([later]);
  });

  it("retries with exponential backoff and full jitter, then sends the job to the dead-letter list", async () => {
    const { queue } = fixture();
    const id = await queue.enqueue(undefined, { name: "flaky", auth: alice, maxAttempts: 3 });
    const delays: number[] = [];
    for (let attempt = 1; attempt <= 3; attempt += 1) {
      const [job] = await queue.claim("w1", 1);
      expect(job?.attempts).toBe(attempt);
      expect(await queue.fail(id, "w1", new Error(`boom ${attempt}`))).toBe(true);
      const after = await queue.get(id);
      if (attempt < 3) {
        expect(after?.status).toBe("pending");
        delays.push((after?.runAt ?? 0) - fixture().clock);
        // Not due before its backoff has passed.
        expect(await queue.claim("w1", 1)).toEqual([]);
        fixture().clock = after?.runAt ?? 0;
      } else {
        expect(after).toMatchObject({ status: "dead", lastError: "Error: boom 3" });
      }
    }
    // random() is 0.5: half of 1 s, then half of 2 s.
    expect(delays).toEqual([500, 1000]);
    expect((await queue.list({ status: "dead" })).jobs.map((job) => job.id)).toEqual([id]);
    fixture().clock += 10 * 60_000;
    expect(await queue.claim("w1", 1)).toEqual([]);
  });

  it("keeps dead jobs across a restart, and a retry revives them with fresh attempts", async () => {
    const { queue } = fixture();
    const id = await queue.enqueue(undefined, { name: "once", auth: alice, maxAttempts: 1 });
    await queue.claim("w1", 1);
    await queue.fail(id, "w1", "no");
    // A new server: a new connection and queue over the same database.
    const restarted = fixture().openQueue();
    expect((await restarted.list({ status: "dead" })).jobs.map((job) => job.id)).toEqual([id]);
    expect(await restarted.retry(id)).toBe(true);
    expect(await restarted.get(id)).toMatchObject({ status: "pending", attempts: 0 });
    const [job] = await restarted.claim("w2", 1);
    expect(job?.id).toBe(id);
    expect(await restarted.complete(id, "w2")).toBe(true);
    expect(await restarted.retry(id)).toBe(false);
  });

  it("cancels pending jobs only, also inside a transaction", async () => {
    const { queue, store } = fixture();
    const pending = await queue.enqueue(undefined, { name: "x", auth: alice });
    const rolledBack = await queue.enqueue(undefined, { name: "x", auth: alice });
    const running = await queue.enqueue(undefined, { name: "x", auth: alice, runAt: 1 });
    await queue.claim("w1", 1);
    expect(await queue.cancel(pending)).toBe(true);
    expect(await queue.cancel(pending)).toBe(false);
    expect(await queue.cancel(running)).toBe(false);
    expect(await queue.cancel("0".repeat(32))).toBe(false);
    await expect(
      store.frameworkTransaction(alice, async ({ db }) => {
        expect(await queue.cancel(rolledBack, db)).toBe(true);
        throw new Error("undo");
      }),
    ).rejects.toThrow("undo");
    expect((await queue.get(rolledBack))?.status).toBe("pending");
    expect((await queue.claim("w1", 5)).map((job) => job.id)).toEqual([rolledBack]);
  });

  it("reclaims a job whose worker stopped once its lease has passed, and a late ack changes nothing", async () => {
    const { queue } = fixture();
    const id = await queue.enqueue(undefined, { name: "slow", auth: alice });
    await queue.claim("dead-worker", 1);
    fixture().clock += 29_999;
    expect(await queue.claim("w2", 1)).toEqual([]);
    fixture().clock += 1;
    const [job] = await queue.claim("w2", 1);
    expect(job).toMatchObject({ id, attempts: 2, lockedBy: "w2" });
    expect(await queue.complete(id, "dead-worker")).toBe(false);
    expect(await queue.fail(id, "dead-worker", "late")).toBe(false);
    expect(await queue.complete(id, "w2")).toBe(true);
    fixture().clock += 60_000;
    expect(await queue.claim("w3", 1)).toEqual([]);
  });

  it("sends a job that keeps killing its worker to the dead-letter list", async () => {
    const { queue } = fixture();
    const id = await queue.enqueue(undefined, { name: "poison", auth: alice, maxAttempts: 2 });
    for (const worker of ["w1", "w2"]) {
      expect(await queue.claim(worker, 1)).toHaveLength(1);
      fixture().clock += 30_000;
    }
    expect(await queue.claim("w3", 1)).toEqual([]);
    expect(await queue.get(id)).toMatchObject({ status: "dead", attempts: 3 });
  });

  it("stores a keyed job once", async () => {
    const { queue } = fixture();
    const first = await queue.enqueue(undefined, { name: "k", auth: adminAuth, key: "same" });
    const second = await queue.enqueue(undefined, { name: "k", auth: adminAuth, key: "same" });
    expect(second).toBe(first);
    expect((await queue.list()).jobs).toHaveLength(1);
  });

  it("pages the list newest first, filters by status and counts each status", async () => {
    const { queue } = fixture();
    const ids: string[] = [];
    for (let i = 0; i < 5; i += 1) {
      ids.push(await queue.enqueue(undefined, { name: `j${i}`, auth: alice }));
      fixture().clock += 1;
    }
    const first = await queue.list({ limit: 2 });
    const second = await queue.list({ limit: 2, cursor: first.nextCursor ?? "" });
    const third = await queue.list({ limit: 2, cursor: second.nextCursor ?? "" });
    expect([...first.jobs, ...second.jobs, ...third.jobs].map((job) => job.id)).toEqual(
      [...ids].reverse(),
    );
    expect(third.nextCursor).toBeNull();
    expect((await queue.list({ status: "dead" })).jobs).toEqual([]);
    expect(await queue.counts()).toEqual({
      pending: 5,
      running: 0,
      succeeded: 0,
      dead: 0,
      cancelled: 0,
    });
    await queue.cancel(ids[0] ?? "");
    expect(await queue.counts()).toMatchObject({ pending: 4, cancelled: 1 });
    await expect(queue.list({ cursor: "nope" })).rejects.toMatchObject({ code: "INVALID_QUERY" });
    await expect(queue.list({ limit: 0 })).rejects.toBeInstanceOf(JobsError);
  });

  it("refuses an invalid job request", async () => {
    const { queue } = fixture();
    await expect(queue.enqueue(undefined, { name: "", auth: alice })).rejects.toMatchObject({
      code: "INVALID_JOB",
    });
    await expect(
      queue.enqueue(undefined, { name: "x", auth: alice, runAt: Number.NaN }),
    ).rejects.toMatchObject({ code: "INVALID_JOB" });
  });

  it("prunes finished jobs past their retention, and clear() removes every job", async () => {
    const { queue } = fixture();
    const done = await queue.enqueue(undefined, { name: "done", auth: alice });
    const dead = await queue.enqueue(undefined, { name: "dead", auth: alice, maxAttempts: 1 });
    for (const job of await queue.claim("w", 2)) {
      if (job.id === done) await queue.complete(job.id, "w");
      else await queue.fail(job.id, "w", "x");
    }
    fixture().clock += 1000;
    expect(await queue.prune(fixture().clock)).toBe(1);
    expect(await queue.get(done)).toBeNull();
    expect((await queue.get(dead))?.status).toBe("dead");
    await queue.clear();
    expect((await queue.list()).jobs).toEqual([]);
  });

  it("runs jobs through a worker: success completes, failure retries, a permanent error goes dead", async () => {
    const { queue } = fixture();
    const ok = await queue.enqueue(undefined, { name: "ok", auth: alice });
    const bad = await queue.enqueue(undefined, { name: "bad", auth: alice });
    const fatal = await queue.enqueue(undefined, { name: "fatal", auth: alice });
    const ran: string[] = [];
    const worker = createJobWorker({
      queue,
      concurrency: 5,
      retentionMs: 0,
      now: () => fixture().clock,
      run: async (job: Job) => {
        ran.push(job.name);
        if (job.name !== "ok") throw new Error(job.name);
      },
      isRetryable: (error) => !(error instanceof Error && error.message === "fatal"),
    });
    expect(await worker.tick()).toBe(3);
    await worker.idle();
    expect(ran.sort()).toEqual(["bad", "fatal", "ok"]);
    expect((await queue.get(ok))?.status).toBe("succeeded");
    expect((await queue.get(bad))?.status).toBe("pending");
    expect((await queue.get(fatal))?.status).toBe("dead");
    await worker.stop();
  });

  it("extends the lease of a running job so no other worker takes it", async () => {
    const { queue } = fixture();
    await queue.enqueue(undefined, { name: "long", auth: alice });
    const pending: (() => void)[] = [];
    let release: () => void = () => undefined;
    const worker = createJobWorker({
      queue,
      retentionMs: 0,
      run: () =>
        new Promise<void>((resolve) => {
          release = resolve;
        }),
      // Fake timers: the lease keeper's timer fires when the test says.
      timers: {
        setTimeout: (fn) => {
          pending.push(fn);
          return fn;
        },
        clearTimeout: (handle) => {
          const index = pending.indexOf(handle as () => void);
          if (index >= 0) pending.splice(index, 1);
        },
      },
    });
    expect(await worker.tick()).toBe(1);
    fixture().clock += 20_000;
    pending.shift()?.();
    // The extension is written asynchronously; wait until it lands.
    await expect
      .poll(async () => (await queue.list()).jobs[0]?.lockedUntil)
      .toBe(fixture().clock + 30_000);
    fixture().clock += 20_000;
    expect(await fixture().openQueue().claim("other", 1)).toEqual([]);
    release();
    await worker.idle();
    expect((await queue.list()).jobs[0]?.status).toBe("succeeded");
  });

  it("creates its table in the attached database on SQLite", async () => {
    const { connection, target } = fixture();
    const queue = createJobQueue({
      db: connection.db,
      dialect: connection.dialect,
      schema: JOBS_SCHEMA,
    });
    const id = await queue.enqueue(undefined, { name: "x", auth: alice });
    expect((await queue.get(id))?.name).toBe("x");
    await matchTarget(target, {
      sqlite: async () => {
        const where = async (schema: string) =>
          (
            await sql<{
              name: string;
            }>`select name from ${sql.raw(schema)}.sqlite_master where name = 'svc_jobs'`.execute(
              connection.db,
            )
          ).rows;
        expect(await where("main")).toEqual([]);
        expect(await where(JOBS_SCHEMA)).toEqual([{ name: "svc_jobs" }]);
      },
      postgres: async () => undefined,
    });
  });
});
