// A worker process for the kill -9 test: it completes the first due job,
// prints "completed <id>", then claims the next, prints "running <id>" and
// hangs until it is killed. Arguments: a JSON object {target, clock,
// leaseMs}, the target being the test's database.
import type { TestDatabaseTarget } from "@svc/tooling/databases";
import { createJobQueue, createJobWorker } from "../src/index.js";
import { JOBS_SCHEMA, openJobsDatabase } from "./jobs-database.js";

const options = JSON.parse(process.argv[2] ?? "{}") as {
  target: TestDatabaseTarget;
  clock: number;
  leaseMs: number;
};
const database = openJobsDatabase(options.target, 2);
const queue = createJobQueue({
  db: database.db,
  dialect: database.dialect,
  schema: JOBS_SCHEMA,
  now: () => options.clock,
  leaseMs: options.leaseMs,
});
let first = true;
const worker = createJobWorker({
  queue,
  workerId: "child",
  retentionMs: 0,
  now: () => options.clock,
  async run(job) {
    if (first) {
      first = false;
      return;
    }
    process.stdout.write(`running ${job.id}\n`);
    // Keep the process alive (a bare pending promise would let it exit).
    setInterval(() => undefined, 1000);
    await new Promise<never>(() => undefined);
  },
});
await worker.tick();
await worker.idle();
const completed = await queue.list({ status: "succeeded" });
process.stdout.write(`completed ${completed.jobs[0]?.id ?? "none"}\n`);
await worker.tick();
