import { parseManifest } from "@svc/schema";
import { createStore, type Store, type StoreDatabase } from "@svc/store";
import type { TestDatabase, TestDatabaseTarget } from "@svc/tooling/databases";
import { databaseForTest, fixturePerTest } from "@svc/tooling/per-test";
import {
  createJobQueue,
  type JobQueue,
  type JobQueueOptions,
  jobsMigrations,
} from "../src/index.js";
import { JOBS_SCHEMA, openJobsDatabase } from "./jobs-database.js";

export { JOBS_SCHEMA };

/** Notes belong to their owner; the job tests write them as the scheduling caller. */
export const jobsManifest = parseManifest({
  manifest_version: 1,
  name: "jobs-test",
  version: "1",
  entities: [
    {
      name: "Note",
      fields: [
        { name: "body", type: "string" },
        { name: "ownerId", type: "string", owner: true },
      ],
    },
  ],
  policies: [
    {
      name: "own notes",
      entity: "Note",
      allowRead: "auth.userId == data.ownerId",
      allowInsert: "auth.userId != null",
    },
  ],
});

/** What each test gets: a migrated store and a queue on a fake clock. */
export interface JobsFixture {
  readonly name: TestDatabase["name"];
  readonly target: TestDatabaseTarget;
  readonly store: Store;
  readonly queue: JobQueue;
  readonly connection: StoreDatabase;
  /** Unix ms of every queue's clock; advance it instead of sleeping. */
  clock: number;
  /** Another connection to the same database (a second server) with its own queue. */
  openQueue(options?: Partial<JobQueueOptions>): JobQueue;
  /** Opens a connection (closed after the test). */
  open(): StoreDatabase;
}

export function useJobsFixture(
  database: TestDatabase,
  options: Partial<JobQueueOptions> = {},
): () => JobsFixture {
  return fixturePerTest("jobs", async (defer) => {
    const { target: where, open } = await databaseForTest(database, defer, (target) =>
      openJobsDatabase(target, 4),
    );
    const connection = open();
    const fixture = { clock: Date.UTC(2026, 10, 25) } as JobsFixture;
    const queueOn = (db: StoreDatabase, extra: Partial<JobQueueOptions> = {}): JobQueue =>
      createJobQueue({
        db: db.db,
        dialect: db.dialect,
        schema: JOBS_SCHEMA,
        now: () => fixture.clock,
        random: () => 0.5,
        ...options,
        ...extra,
      });
    const store = createStore({
      db: connection.db,
      dialect: connection.dialect,
      manifest: jobsManifest,
    });
    await store.migrate({ packages: [jobsMigrations({ schema: JOBS_SCHEMA })] });
    Object.assign(fixture, {
      name: database.name,
      target: where,
      store,
      queue: queueOn(connection),
      connection,
      open,
      openQueue: (extra: Partial<JobQueueOptions> = {}) => queueOn(open(), extra),
    });
    return fixture;
  });
}
