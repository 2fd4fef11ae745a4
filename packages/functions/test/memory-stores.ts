import type { Manifest } from "@svc/schema";
import { createStore, type Store } from "@svc/store";
import { openSqlite } from "@svc/store/sqlite";
import { afterEach } from "vitest";

/**
 * For suites that need no other database: the returned function opens a
 * store on in-memory SQLite, migrated for `manifest`. Every store opened in
 * a test is closed after it.
 */
export function memoryStores(manifest: Manifest): () => Promise<Store> {
  const opened: { close(): Promise<void> }[] = [];
  afterEach(async () => {
    for (const database of opened.splice(0)) await database.close();
  });
  return async () => {
    const database = openSqlite(":memory:");
    opened.push(database);
    const store = createStore({ db: database.db, dialect: database.dialect, manifest });
    await store.migrate();
    return store;
  };
}
