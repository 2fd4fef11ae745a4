import { postgresTestDatabases, sqliteTestDatabase } from "@svc/tooling/databases";
import { type Kysely, sql } from "kysely";
import { describe, expect, it } from "vitest";
import { adminAuth, type EntityTables } from "../src/index.js";
import { databases, expectStoreError, todoInput, useStore } from "./fixture.js";

// A full disk (or database) is STORAGE_FULL (507), not a 500 DATABASE_ERROR,
// and `probeStorage` tells when there is room again. On SQLite the test
// makes the database full for real, without root, with `max_page_count`
// (a per-connection cap on the file's pages: SQLite answers SQLITE_FULL
// past it, as it does on a full disk) and raises it to give the room back.

/** One page over the current size is refused: the database is full. */
async function fillUp(db: Kysely<EntityTables>): Promise<void> {
  const { rows } = await sql<{ page_count: number }>`pragma page_count`.execute(db);
  await sql.raw(`pragma max_page_count = ${Number(rows[0]?.page_count)}`).execute(db);
}

async function giveRoomBack(db: Kysely<EntityTables>): Promise<void> {
  await sql`pragma max_page_count = 1073741823`.execute(db);
}

describe.each(databases)("a full storage on $name", (database) => {
  const fixture = useStore(database);

  it("probeStorage resolves while there is room", async () => {
    const { store } = fixture();
    await store.probeStorage();
    await store.probeStorage();
  });
});

describe.each(postgresTestDatabases())("the storage probe on $name", (database) => {
  const fixture = useStore(database);

  it("writes and deletes in a table of its own, leaving it empty", async () => {
    const { store, database: opened } = fixture();
    await store.probeStorage();
    const { rows } = await sql<{
      count: string;
    }>`select count(*) as count from _svc_storage_probe`.execute(opened.db);
    expect(Number(rows[0]?.count)).toBe(0);
  });
});

describe.each([sqliteTestDatabase()])("a full database on $name", (database) => {
  const fixture = useStore(database);

  // Regression: a full disk answered 500 DATABASE_ERROR.
  it("answers STORAGE_FULL on a write that finds no room, and recovers when room returns", async () => {
    const { store, database: opened } = fixture();
    await fillUp(opened.db);
    // A title big enough to need pages of its own (overflow pages).
    const big = todoInput({ title: "x".repeat(40_000) });
    const refused = await expectStoreError(
      store.transaction(adminAuth, (db) => db.insert("Todo", big)),
      "STORAGE_FULL",
    );
    expect(refused.status).toBe(507);
    expect((refused.cause as { code?: unknown }).code).toBe("SQLITE_FULL");
    await expectStoreError(store.probeStorage(), "STORAGE_FULL");

    await giveRoomBack(opened.db);
    await store.probeStorage();
    const row = await store.transaction(adminAuth, (db) => db.insert("Todo", big));
    expect(row.title).toHaveLength(40_000);
  });
});
