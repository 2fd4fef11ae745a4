import { afterEach, beforeEach } from "vitest";
import type { TestDatabase, TestDatabaseTarget } from "./databases.js";

/** Registers a clean-up step; steps run after the test, the last registered first. */
export type Defer = (step: () => unknown) => void;

/**
 * A fixture made afresh for every test of the enclosing `describe`: `setup`
 * runs before each test and registers with `defer` what to undo (close a
 * connection, drop a database); after the test the steps run, last first,
 * every one even when an earlier one fails (the first failure is rethrown).
 * Returns the accessor a test calls; called outside a test it throws,
 * naming the fixture.
 *
 * @example
 * const fixture = fixturePerTest("store", async (defer) => {
 *   const target = await database.create();
 *   defer(() => database.destroy(target));
 *   return { target };
 * });
 */
export function fixturePerTest<T>(name: string, setup: (defer: Defer) => Promise<T>): () => T {
  let current: T | undefined;
  let steps: (() => unknown)[] = [];
  beforeEach(async () => {
    current = await setup((step) => {
      steps.push(step);
    });
  });
  afterEach(async () => {
    const pending = steps.reverse();
    steps = [];
    current = undefined;
    let failure: { error: unknown } | undefined;
    for (const step of pending) {
      try {
        await step();
      } catch (error) {
        failure ??= { error };
      }
    }
    if (failure !== undefined) throw failure.error;
  });
  return () => {
    if (current === undefined) throw new Error(`the ${name} fixture is used outside a test`);
    return current;
  };
}

/** A test's own database: where it is, and connections to it. */
export interface DatabaseForTest<TConnection> {
  readonly target: TestDatabaseTarget;
  /** Opens another connection (a second server, a concurrent writer). */
  open(): TConnection;
}

/**
 * Inside a {@link fixturePerTest} setup: creates a fresh database on
 * `database` and returns `open`, which connects to it through `connect`.
 * After the test the connections close (the newest first), then the
 * database is dropped.
 *
 * @example
 * const { target, open } = await databaseForTest(database, defer, (target) =>
 *   openTestDatabase(target, { openSqlite, openPostgres }),
 * );
 */
export async function databaseForTest<TConnection extends { close(): Promise<void> }>(
  database: TestDatabase,
  defer: Defer,
  connect: (target: TestDatabaseTarget) => TConnection,
): Promise<DatabaseForTest<TConnection>> {
  const target = await database.create();
  defer(() => database.destroy(target));
  return {
    target,
    open: () => {
      const connection = connect(target);
      defer(() => connection.close());
      return connection;
    },
  };
}
