import { parseManifest } from "@svc/schema";
import { createStore, type Store, type StoreDatabase } from "@svc/store";
import type { TestDatabase, TestDatabaseTarget } from "@svc/tooling/databases";
import { afterEach, beforeEach } from "vitest";
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
  let current: JobsFixture | undefined;
  let target: TestDatabaseTarget | undefined;
  let opened: StoreDatabase[] = [];

  beforeEach(async () => {
    target = await database.create();
    const where = target;
    const open = (): StoreDatabase => {
      const connection = openJobsDatabase(where, 4);
      opened.push(connection);
      return connection;
    };
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
    current = fixture;
  });

  afterEach(async () => {
    current = undefined;
    for (const connection of opened.reverse()) await connection.close();
    opened = [];
    if (target !== undefined) {
      await database.destroy(target);
    }
    target = undefined;
  });

  return () => {
    if (current === undefined) throw new Error("the jobs fixture is used outside a test");
    return current;
  };
}
