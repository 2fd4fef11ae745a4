import type { TestDatabase, TestDatabaseTarget } from "@svc/tooling/databases";
import { afterAll, beforeAll } from "vitest";
import type { AccessTestDatabase } from "../src/access-tests.js";
import { type OpenedDatabase, openAccessDatabase } from "./access-databases.js";

/** Gives the open database inside a test; `target()` says where it lives. */
export interface AccessDatabaseAccessor {
  (): AccessTestDatabase;
  target(): TestDatabaseTarget;
}

/**
 * Opens a database of `kind` once for the enclosing `describe` and closes it
 * after its tests; the returned function gives that database inside a test.
 */
export function useAccessDatabase(kind: TestDatabase): AccessDatabaseAccessor {
  let opened: OpenedDatabase | undefined;
  beforeAll(async () => {
    opened = await openAccessDatabase(kind);
  });
  afterAll(async () => {
    await opened?.close();
  });
  const current = (): OpenedDatabase => {
    if (opened === undefined) throw new Error("the access database is not open yet");
    return opened;
  };
  return Object.assign(() => current().database, { target: () => current().target });
}
