import { AsyncLocalStorage } from "node:async_hooks";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { sql } from "kysely";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createGroupCommit } from "../src/group-commit.js";
import { adminAuth, createStore, type Store, type StoreDatabase } from "../src/index.js";
import { openSqlite } from "../src/sqlite.js";
import { baseManifest, expectStoreError, manifestOf, todoInput } from "./fixture.js";

// Group commit on SQLite: transactions that reach the writer in one
// event-loop turn share one commit. Each must still behave as a transaction
// of its own, and none may be acknowledged before its commit.

const manifest = manifestOf(baseManifest);

/** A promise the test resolves itself. */
function gate(): { promise: Promise<void>; open: () => void } {
  let open: () => void = () => undefined;
  const promise = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { promise, open };
}

describe("group commit (SQLite file)", () => {
  let dir: string;
  let path: string;
  let database: StoreDatabase;
  let store: Store;
  let commits: number[];

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), "svc-group-commit-"));
    path = join(dir, "data.db");
    database = openSqlite(path);
    commits = [];
    store = createStore({ ...database, manifest, onCommit: (members) => commits.push(members) });
    await store.migrate();
    commits = [];
  });

  afterEach(async () => {
    await database.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Counts `List` rows through a connection of its own: only committed rows count. */
  function committedLists(): number {
    const reader = new Database(path, { readonly: true });
    try {
      const row = reader.prepare("select count(*) as n from List").get() as { n: number };
      return row.n;
    } finally {
      reader.close();
    }
  }

  it("commits the transactions issued together once, and keeps all of them", async () => {
    const inserted = await Promise.all(
      Array.from({ length: 20 }, (_, index) =>
        store.transaction(adminAuth, (tx) => tx.insert("List", { title: `list ${index}` })),
      ),
    );
    expect(commits).toEqual([20]);
    expect(new Set(inserted.map((row) => row.id)).size).toBe(20);
    expect(committedLists()).toBe(20);
  });

  it("acknowledges no transaction before the commit that holds its writes", async () => {
    const seenAtAcknowledgement: number[] = [];
    await Promise.all(
      Array.from({ length: 5 }, (_, index) =>
        store
          .transaction(adminAuth, (tx) => tx.insert("List", { title: `list ${index}` }))
          .then(() => {
            seenAtAcknowledgement.push(committedLists());
          }),
      ),
    );
    // Another connection sees all five rows when the first promise settles.
    expect(seenAtAcknowledgement).toEqual([5, 5, 5, 5, 5]);
  });

  it("fails a throwing transaction alone: its writes go, the others' stay", async () => {
    const failure = new Error("the third one fails");
    const results = await Promise.allSettled(
      Array.from({ length: 5 }, (_, index) =>
        store.transaction(adminAuth, async (tx) => {
          await tx.insert("List", { title: `list ${index}` });
          if (index === 2) throw failure;
          return index;
        }),
      ),
    );
    expect(results.map((result) => result.status)).toEqual([
      "fulfilled",
      "fulfilled",
      "rejected",
      "fulfilled",
      "fulfilled",
    ]);
    // The caller's own error passes through as it was thrown.
    expect((results[2] as PromiseRejectedResult).reason).toBe(failure);
    expect(commits).toEqual([5]);
    const titles = (await store.reader(adminAuth).query("List", { limit: 10 })).rows.map(
      (row) => row.title,
    );
    expect(titles.sort()).toEqual(["list 0", "list 1", "list 3", "list 4"]);
  });

  it("rolls back a failed constraint to the transaction's savepoint only", async () => {
    const results = await Promise.allSettled([
      store.transaction(adminAuth, (tx) => tx.insert("Todo", todoInput({ code: "A" }))),
      store.transaction(adminAuth, async (tx) => {
        await tx.insert("List", { title: "kept only with the todo" });
        return tx.insert("Todo", todoInput({ code: "A" }));
      }),
      store.transaction(adminAuth, (tx) => tx.insert("Todo", todoInput({ code: "B" }))),
    ]);
    expect(results.map((result) => result.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
    await expectStoreError(
      Promise.reject((results[1] as PromiseRejectedResult).reason),
      "UNIQUE_VIOLATION",
    );
    expect(committedLists()).toBe(0);
    const codes = (await store.reader(adminAuth).query("Todo", { limit: 10 })).rows.map(
      (row) => row.code,
    );
    expect(codes.sort()).toEqual(["A", "B"]);
  });

  it("fails every transaction of a group whose commit fails, and writes none of them", async () => {
    await sql`create table child (parent_id text references List (id))`.execute(database.db);
    const results = await Promise.allSettled([
      store.transaction(adminAuth, (tx) => tx.insert("List", { title: "first" })),
      // Deferred foreign keys are checked at COMMIT, so this one's dangling
      // reference fails the commit that the whole group shares.
      store.frameworkTransaction(adminAuth, async ({ db }) => {
        await sql`pragma defer_foreign_keys = on`.execute(db);
        await sql`insert into child (parent_id) values (${"f".repeat(40)})`.execute(db);
      }),
      store.transaction(adminAuth, (tx) => tx.insert("List", { title: "third" })),
    ]);
    expect(results.map((result) => result.status)).toEqual(["rejected", "rejected", "rejected"]);
    for (const result of results) {
      await expectStoreError(
        Promise.reject((result as PromiseRejectedResult).reason),
        "DATABASE_ERROR",
      );
    }
    expect(commits).toEqual([]);
    expect(committedLists()).toBe(0);
    // The writer is usable again afterwards.
    await store.transaction(adminAuth, (tx) => tx.insert("List", { title: "after" }));
    expect(committedLists()).toBe(1);
  });

  it("publishes each transaction's changes after the commit, in commit order", async () => {
    const published: string[] = [];
    store.onChange((events) => {
      for (const event of events) published.push(String(event.row?.title));
    });
    await Promise.all(
      ["a", "b", "c", "d"].map((title) =>
        store.transaction(adminAuth, (tx) => tx.insert("List", { title })),
      ),
    );
    expect(published).toEqual(["a", "b", "c", "d"]);
  });

  it("runs each transaction in its caller's async context", async () => {
    const requestId = new AsyncLocalStorage<string>();
    const seen = await Promise.all(
      ["r1", "r2", "r3"].map((id) =>
        requestId.run(id, () =>
          store.transaction(adminAuth, async (tx) => {
            await tx.insert("List", { title: id });
            return requestId.getStore();
          }),
        ),
      ),
    );
    expect(seen).toEqual(["r1", "r2", "r3"]);
  });

  it("still refuses a nested transaction inside a grouped one", async () => {
    const [, nested] = await Promise.allSettled([
      store.transaction(adminAuth, (tx) => tx.insert("List", { title: "first" })),
      store.transaction(adminAuth, () =>
        store.transaction(adminAuth, (tx) => tx.insert("List", { title: "inner" })),
      ),
    ]);
    await expectStoreError(
      Promise.reject((nested as PromiseRejectedResult).reason),
      "NESTED_TRANSACTION",
    );
  });

  it("still commits while a test fakes the timers", async () => {
    vi.useFakeTimers();
    try {
      await Promise.all(
        [1, 2].map((index) =>
          store.transaction(adminAuth, (tx) => tx.insert("List", { title: `list ${index}` })),
        ),
      );
    } finally {
      vi.useRealTimers();
    }
    expect(commits).toEqual([2]);
  });

  it("commits each transaction by itself when group commit is off", async () => {
    const single = createStore({
      ...database,
      manifest,
      groupCommit: false,
      onCommit: (members) => commits.push(members),
    });
    await Promise.all(
      [1, 2, 3].map((index) =>
        single.transaction(adminAuth, (tx) => tx.insert("List", { title: `list ${index}` })),
      ),
    );
    expect(commits).toEqual([]);
    expect(committedLists()).toBe(3);
  });
});

describe("createGroupCommit", () => {
  let database: StoreDatabase;

  beforeEach(() => {
    database = openSqlite(":memory:");
  });

  afterEach(async () => {
    await database.close();
  });

  it("gives the connection back between groups, so other users of it are not starved", async () => {
    const { db } = database;
    await sql`create table t (n integer)`.execute(db);
    const commits: number[] = [];
    const group = createGroupCommit(db, {
      maxMembers: 2,
      onCommit: (members) => commits.push(members),
    });
    const order: string[] = [];
    const firstStarted = gate();
    const insert = (n: number) =>
      group.run(async (connection) => {
        if (n === 1) firstStarted.open();
        await sql`insert into t (n) values (${n})`.execute(connection);
        order.push(`member ${n}`);
      });
    const members = [1, 2, 3, 4, 5, 6].map(insert);
    await firstStarted.promise;
    // Asks for the connection while the first group holds it.
    const outside = db
      .transaction()
      .execute(async (trx) => {
        await sql`insert into t (n) values (0)`.execute(trx);
      })
      .then(() => order.push("outside"));
    await Promise.all([...members, outside]);
    expect(commits).toEqual([2, 2, 2]);
    expect(order).toEqual([
      "member 1",
      "member 2",
      "outside",
      "member 3",
      "member 4",
      "member 5",
      "member 6",
    ]);
  });
});
