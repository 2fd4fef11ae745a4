import { type Manifest, type ManifestInput, parseManifest } from "@svc/schema";
import {
  openTestDatabase,
  type TestDatabase,
  type TestDatabaseTarget,
  testDatabases,
} from "@svc/tooling/databases";
import { listEntity, todoEntity } from "@svc/tooling/manifests";
import { databaseForTest, fixturePerTest } from "@svc/tooling/per-test";
import { expect } from "vitest";
import {
  type AuthContext,
  type CreateStoreOptions,
  createAuthContext,
  createStore,
  type Store,
  type StoreDatabase,
  StoreError,
  type StoreErrorCode,
} from "../src/index.js";
import { openPostgres } from "../src/pg.js";
import { openSqlite } from "../src/sqlite.js";

/** Every database the contract suite runs on. */
export const databases: TestDatabase[] = testDatabases();

/** The fixed time `defaultNow` fields get. */
export const NOW = "2024-01-02T03:04:05.678Z";

/** The admin token acting for a user, so owner fields are stamped. */
export const adminAs = (userId: string): AuthContext =>
  createAuthContext({ isAdmin: true, userId });

/** A record id made from a small number, so tests can predict id order. */
export const idOf = (n: number): string => n.toString(16).padStart(40, "0");

/** The manifest the contract suite stores rows in: every kind, references, owners. */
export const baseManifest = {
  manifest_version: 1,
  name: "contract",
  version: "1",
  entities: [
    listEntity(),
    {
      ...todoEntity(
        { name: "due", type: "datetime", optional: true },
        { name: "points", type: "int", optional: true },
        { name: "score", type: "float", optional: true },
        { name: "meta", type: "json", optional: true },
        { name: "code", type: "string", unique: true, optional: true },
      ),
      indexes: [{ name: "by_owner", fields: ["ownerId"] }],
    },
    {
      name: "Node",
      fields: [
        { name: "label", type: "string" },
        { name: "parentId", type: "id", target: "Node", optional: true },
      ],
    },
  ],
} satisfies ManifestInput;

/** A complete, valid Todo insert for a user-less admin. */
export function todoInput(fields: Record<string, unknown> = {}): Record<string, unknown> {
  return { title: "Write tests", done: false, ownerId: "user-1", priority: "low", ...fields };
}

/** Opens the database a test target points to. */
export function openTarget(target: TestDatabaseTarget): StoreDatabase {
  return openTestDatabase(target, { openSqlite, openPostgres }, { max: 4 });
}

/** Parses a manifest input for a test. */
export function manifestOf(input: ManifestInput): Manifest {
  return parseManifest(input);
}

/** What each test gets: a migrated store on a fresh database. */
export interface StoreFixture {
  readonly store: Store;
  readonly database: StoreDatabase;
  readonly target: TestDatabaseTarget;
  /** Opens another store on the same database (closed with the fixture). */
  reopen(options?: Partial<CreateStoreOptions> & { manifest?: Manifest }): Store;
}

/**
 * Registers beforeEach/afterEach hooks that give every test a fresh, migrated
 * store on `database`, and returns an accessor for it.
 */
export function useStore(
  database: TestDatabase,
  options: { manifest?: ManifestInput; migrate?: boolean } = {},
): () => StoreFixture {
  return fixturePerTest("store", async (defer) => {
    const { target, open } = await databaseForTest(database, defer, openTarget);
    const manifest = manifestOf(options.manifest ?? baseManifest);
    const primary = open();
    const store = createStore({ ...primary, manifest, clock: () => new Date(NOW) });
    if (options.migrate !== false) await store.migrate();
    return {
      store,
      database: primary,
      target,
      reopen: (overrides = {}) => {
        const db = open();
        return createStore({ ...db, manifest, clock: () => new Date(NOW), ...overrides });
      },
    };
  });
}

const SQL_OR_DRIVER_TEXT =
  /\b(select|insert into|update \S+ set|delete from|returning)\b|sqlite|constraint failed|violates|duplicate key|\$\d|"\w+"\s*\(|\n\s+at /i;

/**
 * Awaits `promise`, expects a StoreError with `code`, checks its message is
 * free of SQL and driver text, and returns it.
 */
export async function expectStoreError(
  promise: Promise<unknown>,
  code: StoreErrorCode,
): Promise<StoreError> {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(StoreError);
  const storeError = error as StoreError;
  expect({ code: storeError.code, message: storeError.message }).toMatchObject({ code });
  expect(storeError.message).not.toMatch(SQL_OR_DRIVER_TEXT);
  return storeError;
}
