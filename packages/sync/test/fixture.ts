import { type AuthContext, createAuthContext, parseManifest } from "@svc/schema";
import { createStore, type Store, type StoreDatabase } from "@svc/store";
import { openPostgres } from "@svc/store/pg";
import { openSqlite } from "@svc/store/sqlite";
import { openTestDatabase, type TestDatabase } from "@svc/tooling/databases";
import { databaseForTest, fixturePerTest } from "@svc/tooling/per-test";
import { rejectionOf } from "@svc/tooling/thrown";
import { expect } from "vitest";
import {
  type ChangeLog,
  type ChangeLogOptions,
  createChangeLog,
  createSync,
  type Sync,
  SyncError,
  type SyncErrorCode,
  syncMigrations,
} from "../src/index.js";

/** A Task: its title and the user it is assigned to (the key its reads follow). */
export const taskEntity = {
  name: "Task",
  fields: [
    { name: "title", type: "string" },
    { name: "assigneeId", type: "string" },
  ],
} as const;

/** Who belongs to which project: what `exists(Member where ...)` rules look up. */
export const memberEntity = {
  name: "Member",
  fields: [
    { name: "projectId", type: "string" },
    { name: "userId", type: "string" },
  ],
} as const;

/** Tasks follow their assignee (reassignable, so a row can leave a reader's view); Docs their tenant. */
export const syncManifest = parseManifest({
  manifest_version: 1,
  name: "sync-test",
  version: "1",
  entities: [
    taskEntity,
    {
      name: "Doc",
      fields: [
        { name: "title", type: "string" },
        { name: "tenantId", type: "string" },
      ],
    },
    memberEntity,
    {
      name: "Note",
      fields: [
        { name: "body", type: "string" },
        { name: "projectId", type: "string" },
      ],
    },
    { name: "Secret", fields: [{ name: "value", type: "string" }] },
  ],
  policies: [
    {
      name: "assigned tasks",
      entity: "Task",
      allowRead: "auth.userId == data.assigneeId",
      allowInsert: "auth.userId != null",
      allowUpdate: "auth.userId == existing.assigneeId",
      allowDelete: "auth.userId == existing.assigneeId",
    },
    {
      name: "tenant docs",
      entity: "Doc",
      allowRead: "auth.tenantId != null && auth.tenantId == data.tenantId",
      allowInsert: "auth.tenantId == data.tenantId",
    },
    {
      name: "project notes",
      entity: "Note",
      allowRead: "exists(Member where projectId == data.projectId && userId == auth.userId)",
    },
  ],
});

export const alice: AuthContext = createAuthContext({ userId: "alice", via: "session" });
export const bob: AuthContext = createAuthContext({ userId: "bob", via: "session" });

/** What each test gets: a migrated store whose change bus is the log, and the sync core. */
export interface SyncFixture {
  readonly name: TestDatabase["name"];
  readonly store: Store;
  readonly log: ChangeLog;
  readonly sync: Sync;
  readonly connection: StoreDatabase;
  /** Unix ms of the log's clock; advance it instead of sleeping. */
  clock: number;
  /** Another connection to the same database (Postgres: for concurrent transactions). */
  open(): StoreDatabase;
}

export function useSyncFixture(
  database: TestDatabase,
  options: Partial<ChangeLogOptions> = {},
): () => SyncFixture {
  return fixturePerTest("sync", async (defer) => {
    const { open } = await databaseForTest(database, defer, (target) =>
      openTestDatabase(target, { openSqlite, openPostgres }, { max: 4 }),
    );
    const connection = open();
    const fixture = { clock: Date.UTC(2026, 10, 25) } as SyncFixture;
    const log = createChangeLog({
      db: connection.db,
      dialect: connection.dialect,
      now: () => fixture.clock,
      ...options,
    });
    const store = syncStore(connection, log);
    await store.migrate({ packages: [syncMigrations()] });
    Object.assign(fixture, {
      name: database.name,
      store,
      log,
      sync: createSync({ store, log }),
      connection,
      open,
    });
    return fixture;
  });
}

/**
 * A store over `connection` with the suites' manifest whose change bus is
 * `log`, as every sync server is wired; the caller migrates it.
 */
export function syncStore(
  connection: Pick<StoreDatabase, "db" | "dialect">,
  log: ChangeLog,
): Store {
  return createStore({
    db: connection.db,
    dialect: connection.dialect,
    manifest: syncManifest,
    changeBus: log,
  });
}

/** Expects a `SyncError` with `code` and returns it. */
export async function expectSyncError(
  promise: Promise<unknown>,
  code: SyncErrorCode,
): Promise<SyncError> {
  const error = await rejectionOf(promise);
  expect(error).toBeInstanceOf(SyncError);
  expect((error as SyncError).code).toBe(code);
  return error as SyncError;
}
