import { type ChildProcess, spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { adminAuth, createAuthContext } from "@svc/schema";
import { testDatabases } from "@svc/tooling/databases";
import { afterEach, describe, expect, it } from "vitest";
import { createJobWorker, type Job, type JobWorker } from "../src/index.js";
import { useJobsFixture } from "./fixture.js";

const alice = createAuthContext({ userId: "alice", via: "session" });
const LEASE_MS = 30_000;

/** Ticks every worker until `done()` holds (a poll loop with a bound, not a sleep). */
async function tickUntil(workers: readonly JobWorker[], done: () => boolean): Promise<void> {
  for (let round = 0; round < 500 && !done(); round += 1) {
    await Promise.all(workers.map((worker) => worker.tick()));
    await Promise.all(workers.map((worker) => worker.idle()));
  }
  expect(done()).toBe(true);
}

describe.each(testDatabases())("job workers on $name", (database) => {
  const fixture = useJobsFixture(database, { leaseMs: LEASE_MS });
  const children: ChildProcess[] = [];

  afterEach(() => {
    for (const child of children.splice(0)) if (child.exitCode === null) child.kill("SIGKILL");
  });

  it("enqueues and runs each cron occurrence once with two servers", async () => {
    const runs: number[] = [];
    // 2026-11-25 00:01 UTC; the schedule fires every five minutes.
    fixture().clock = Date.UTC(2026, 10, 25, 0, 1);
    const cron = [{ name: "digest", schedule: "*/5 * * * *", fn: "sendDigest", args: { n: 1 } }];
    const workers = [fixture().queue, fixture().openQueue()].map((queue, index) =>
      createJobWorker({
        queue,
        workerId: `server-${index}`,
        cron,
        retentionMs: 0,
        now: () => fixture().clock,
        run: async (job: Job) => {
          expect(job).toMatchObject({ name: "sendDigest", args: { n: 1 }, auth: adminAuth });
          runs.push(job.runAt);
        },
      }),
    );
    for (let minute = 0; minute < 20; minute += 1) {
      for (const worker of workers) await worker.tick();
      await Promise.all(workers.map((worker) => worker.idle()));
      fixture().clock += 60_000;
    }
    const start = Date.UTC(2026, 10, 25, 0, 5);
    expect(runs).toEqual([0, 1, 2, 3].map((i) => start + i * 5 * 60_000));
    const all = (await fixture().queue.list({ limit: 100 })).jobs;
    // The four that ran and the next one, each stored once.
    expect(all.map((job) => job.key).sort()).toEqual(
      [0, 1, 2, 3, 4].map((i) => `cron:digest:${start + i * 5 * 60_000}`),
    );
  });

  it("never runs a job twice with two servers sharing the queue (200 jobs)", async () => {
    const { queue } = fixture();
    const ids = new Set<string>();
    for (let i = 0; i < 200; i += 1) {
      ids.add(await queue.enqueue(undefined, { name: "count", args: { i }, auth: alice }));
    }
    const runs = new Map<string, string[]>();
    const workers = [queue, fixture().openQueue()].map((serverQueue, index) =>
      createJobWorker({
        queue: serverQueue,
        workerId: `server-${index}`,
        concurrency: 8,
        retentionMs: 0,
        run: async (job: Job) => {
          runs.set(job.id, [...(runs.get(job.id) ?? []), `server-${index}`]);
          // Yield, so the other server's claims interleave with this one's.
          await new Promise((resolve) => setImmediate(resolve));
        },
      }),
    );
    await tickUntil(workers, () => runs.size === 200);
    expect([...runs.keys()].sort()).toEqual([...ids].sort());
    expect([...runs.values()].filter((servers) => servers.length !== 1)).toEqual([]);
    expect((await queue.list({ status: "succeeded", limit: 1000 })).jobs).toHaveLength(200);
  });

  it("after a kill -9 mid-job, another worker runs that job once the lease passes; a job completed before the kill never runs again", async () => {
    const { queue, target } = fixture();
    const at = fixture().clock;
    const finished = await queue.enqueue(undefined, { name: "first", auth: alice, runAt: at - 2 });
    const interrupted = await queue.enqueue(undefined, {
      name: "second",
      auth: alice,
      runAt: at - 1,
    });
    const child = spawn(
      process.execPath,
      [
        "--conditions=@svc/source",
        "--import",
        "tsx",
        new URL("./kill-child.ts", import.meta.url).pathname,
        JSON.stringify({
          target,
          clock: at,
          leaseMs: LEASE_MS,
        }),
      ],
      { stdio: ["ignore", "pipe", "inherit"], cwd: new URL("..", import.meta.url).pathname },
    );
    children.push(child);
    const lines: string[] = [];
    const running = new Promise<void>((resolve, reject) => {
      createInterface({ input: child.stdout ?? process.stdin }).on("line", (line) => {
        lines.push(line);
        if (line.startsWith("running ")) resolve();
      });
      child.on("exit", (code) => reject(new Error(`the child exited with ${code}: ${lines}`)));
    });
    await running;
    expect(lines).toEqual([`completed ${finished}`, `running ${interrupted}`]);
    const exited = new Promise((resolve) => child.on("exit", resolve));
    child.kill("SIGKILL");
    await exited;

    const ran: string[] = [];
    const worker = createJobWorker({
      queue: fixture().openQueue(),
      workerId: "survivor",
      retentionMs: 0,
      run: async (job: Job) => {
        ran.push(job.id);
      },
    });
    // The dead worker's lease still holds: nobody may take the job yet.
    fixture().clock = at + LEASE_MS - 1;
    expect(await worker.tick()).toBe(0);
    fixture().clock = at + LEASE_MS;
    await tickUntil([worker], () => ran.length === 1);
    fixture().clock += 10 * LEASE_MS;
    expect(await worker.tick()).toBe(0);
    expect(ran).toEqual([interrupted]);
    expect(await queue.get(interrupted)).toMatchObject({ status: "succeeded", attempts: 2 });
    expect(await queue.get(finished)).toMatchObject({ status: "succeeded", attempts: 1 });
  });
});
