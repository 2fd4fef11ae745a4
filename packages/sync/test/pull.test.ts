import { adminAuth, anonymousAuth, createAuthContext } from "@svc/schema";
import { testDatabases } from "@svc/tooling/databases";
import { describe, expect, it } from "vitest";
import type { PullResult } from "../src/index.js";
import { alice, bob, expectSyncError, useSyncFixture } from "./fixture.js";

// A pull answers the entries after a cursor that the caller's read policy
// admits; everything else is skipped but still advances the cursor.

const acme = createAuthContext({ userId: "carol", tenantId: "acme", via: "session" });
const globex = createAuthContext({ userId: "dave", tenantId: "globex", via: "session" });

describe.each(testDatabases())("pull on $name", (database) => {
  const fixture = useSyncFixture(database, { retention: { maxEntries: 2 } });

  const start = async (): Promise<string> => (await fixture().sync.pull(adminAuth)).cursor;

  it("answers only the current cursor without since", async () => {
    const f = fixture();
    expect(await f.sync.pull(alice)).toEqual({ changes: [], cursor: "0", has_more: false });
    await f.store.transaction(alice, (db) =>
      db.insert("Task", { title: "a", assigneeId: "alice" }),
    );
    const { latest } = await f.log.bounds();
    expect(await f.sync.pull(alice)).toEqual({
      changes: [],
      cursor: String(latest),
      has_more: false,
    });
  });

  it("gives each user only their own rows, and `remove` when a row leaves their view", async () => {
    const f = fixture();
    const since = await start();
    const task = await f.store.transaction(alice, (db) =>
      db.insert("Task", { title: "a", assigneeId: "alice" }),
    );
    await f.store.transaction(bob, (db) => db.insert("Task", { title: "b", assigneeId: "bob" }));
    const handed = await f.store.transaction(alice, (db) =>
      db.update("Task", task.id, { assigneeId: "bob" }),
    );
    await f.store.transaction(bob, (db) => db.delete("Task", task.id));
    const forAlice = await f.sync.pull(alice, { since });
    const forBob = await f.sync.pull(bob, { since });
    expect(forAlice.changes.map(({ op, rowId }) => ({ op, rowId }))).toEqual([
      { op: "insert", rowId: task.id },
      { op: "remove", rowId: task.id },
    ]);
    expect(forAlice.changes[1]).not.toHaveProperty("row");
    expect(forBob.changes.map(({ op, row }) => ({ op, title: row?.title }))).toEqual([
      { op: "insert", title: "b" },
      { op: "update", title: "a" },
      { op: "delete", title: undefined },
    ]);
    expect(forBob.changes[1]?.row).toEqual(handed);
    // Both end at the same cursor: invisible entries advance it too.
    expect(forAlice.cursor).toBe(forBob.cursor);
    expect(forAlice.cursor).toBe(String(await f.log.latestCursor()));
    expect(await f.sync.pull(alice, { since: forAlice.cursor })).toEqual({
      changes: [],
      cursor: forAlice.cursor,
      has_more: false,
    });
  });

  it("filters by tenant, hides unpoliced entities, and shows the admin everything", async () => {
    const f = fixture();
    const since = await start();
    await f.store.transaction(acme, (db) => db.insert("Doc", { title: "a", tenantId: "acme" }));
    await f.store.transaction(globex, (db) => db.insert("Doc", { title: "g", tenantId: "globex" }));
    await f.store.transaction(adminAuth, (db) => db.insert("Secret", { value: "s" }));
    const titles = (result: PullResult) =>
      result.changes.map((change) => `${change.entity}:${change.row?.title ?? change.row?.value}`);
    expect(titles(await f.sync.pull(acme, { since }))).toEqual(["Doc:a"]);
    expect(titles(await f.sync.pull(globex, { since }))).toEqual(["Doc:g"]);
    expect(titles(await f.sync.pull(alice, { since }))).toEqual([]);
    expect(titles(await f.sync.pull(anonymousAuth, { since }))).toEqual([]);
    expect(titles(await f.sync.pull(adminAuth, { since }))).toEqual(["Doc:a", "Doc:g", "Secret:s"]);
  });

  it("resolves exists(...) rules through the store", async () => {
    const f = fixture();
    await f.store.transaction(adminAuth, (db) =>
      db.insert("Member", { projectId: "p1", userId: "alice" }),
    );
    const since = await start();
    await f.store.transaction(adminAuth, async (db) => {
      await db.insert("Note", { body: "in p1", projectId: "p1" });
      await db.insert("Note", { body: "in p2", projectId: "p2" });
    });
    const bodies = async (auth: typeof alice) =>
      (await f.sync.pull(auth, { since })).changes.map((change) => change.row?.body);
    expect(await bodies(alice)).toEqual(["in p1"]);
    expect(await bodies(bob)).toEqual([]);
  });

  it("pages with limit and has_more, with no gap and no duplicate", async () => {
    const f = fixture();
    const since = await start();
    const inserted: string[] = [];
    for (let i = 0; i < 7; i += 1) {
      const row = await f.store.transaction(alice, (db) =>
        db.insert("Task", { title: `t${i}`, assigneeId: i % 3 === 0 ? "bob" : "alice" }),
      );
      inserted.push(row.id);
    }
    const seen: string[] = [];
    let cursor = since;
    let pulls = 0;
    for (;;) {
      const page = await f.sync.pull(adminAuth, { since: cursor, limit: "3" });
      pulls += 1;
      expect(page.changes.length).toBeLessThanOrEqual(3);
      seen.push(...page.changes.map((change) => change.rowId));
      cursor = page.cursor;
      if (!page.has_more) break;
    }
    expect(pulls).toBe(3);
    expect(seen).toEqual(inserted);
    const mine: string[] = [];
    cursor = since;
    for (let more = true; more; ) {
      const page = await f.sync.pull(alice, { since: cursor, limit: 2 });
      mine.push(...page.changes.map((change) => change.rowId));
      cursor = page.cursor;
      more = page.has_more;
    }
    expect(mine).toEqual(inserted.filter((_, i) => i % 3 !== 0));
  });

  it.each([
    ["a word", { since: "abc" }],
    ["a negative cursor", { since: "-1" }],
    ["a leading zero", { since: "01" }],
    ["an unsafe integer", { since: "99999999999999999" }],
    ["limit 0", { since: "0", limit: "0" }],
    ["limit 1001", { since: "0", limit: 1001 }],
    ["a fractional limit", { since: "0", limit: "2.5" }],
  ])("rejects %s with INVALID_QUERY", async (_, query) => {
    await expectSyncError(fixture().sync.pull(alice, query), "INVALID_QUERY");
  });

  it("answers RESYNC_REQUIRED for a cursor from the future", async () => {
    const f = fixture();
    await expectSyncError(f.sync.pull(alice, { since: "1" }), "RESYNC_REQUIRED");
    await f.store.transaction(alice, (db) =>
      db.insert("Task", { title: "a", assigneeId: "alice" }),
    );
    const latest = await f.log.latestCursor();
    await expectSyncError(f.sync.pull(alice, { since: String(latest + 1) }), "RESYNC_REQUIRED");
    expect((await f.sync.pull(alice, { since: String(latest) })).changes).toEqual([]);
  });

  it("answers RESYNC_REQUIRED for a cursor past retention", async () => {
    const f = fixture();
    const since = await start();
    for (let i = 0; i < 4; i += 1) {
      await f.store.transaction(alice, (db) =>
        db.insert("Task", { title: `t${i}`, assigneeId: "alice" }),
      );
    }
    expect((await f.sync.pull(alice, { since })).changes).toHaveLength(4);
    await f.log.prune();
    const oldest = (await f.log.oldestCursor()) ?? 0;
    await expectSyncError(f.sync.pull(alice, { since }), "RESYNC_REQUIRED");
    await expectSyncError(f.sync.pull(alice, { since: String(oldest - 2) }), "RESYNC_REQUIRED");
    expect((await f.sync.pull(alice, { since: String(oldest - 1) })).changes).toHaveLength(2);
  });

  it("answers RESYNC_REQUIRED for every cursor from before a reset", async () => {
    const f = fixture();
    const since = await start();
    await f.store.transaction(alice, (db) =>
      db.insert("Task", { title: "a", assigneeId: "alice" }),
    );
    const before = await f.sync.pull(alice, { since });
    await f.store.truncateAll();
    await expectSyncError(f.sync.pull(alice, { since }), "RESYNC_REQUIRED");
    await expectSyncError(f.sync.pull(alice, { since: before.cursor }), "RESYNC_REQUIRED");
    const fresh = await f.sync.pull(alice);
    expect(Number(fresh.cursor)).toBeGreaterThan(Number(before.cursor));
    const task = await f.store.transaction(alice, (db) =>
      db.insert("Task", { title: "after", assigneeId: "alice" }),
    );
    const after = await f.sync.pull(alice, { since: fresh.cursor });
    expect(after.changes).toEqual([
      { cursor: expect.any(String), entity: "Task", op: "insert", rowId: task.id, row: task },
    ]);
  });
});
