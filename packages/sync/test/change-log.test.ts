import { adminAuth } from "@svc/schema";
import { postgresTestDatabases, testDatabases } from "@svc/tooling/databases";
import type { Kysely } from "kysely";
import { describe, expect, it } from "vitest";
import { createChangeLog, type LoggedChange, type SyncTables } from "../src/index.js";
import { useSyncFixture } from "./fixture.js";

// The log is an outbox: written in the write's transaction, so it holds
// exactly the acknowledged writes, with cursors in commit order.

describe.each(testDatabases())("change log on $name", (database) => {
  const fixture = useSyncFixture(database, { retention: { maxEntries: 3, maxAgeMs: 60_000 } });
  const tables = () => fixture().connection.db as unknown as Kysely<SyncTables>;

  it("records every acknowledged write, with both images, and publishes cursors", async () => {
    const f = fixture();
    const published: (readonly LoggedChange[])[] = [];
    f.log.subscribe((changes) => published.push(changes));
    const { task, updated } = await f.store.transaction(adminAuth, async (db) => {
      const task = await db.insert("Task", { title: "a", assigneeId: "alice" });
      const updated = await db.update("Task", task.id, { title: "b" });
      await db.insert("Secret", { value: "s" });
      return { task, updated };
    });
    await f.store.transaction(adminAuth, (db) => db.delete("Task", task.id));
    const entries = await f.log.read(0, 10);
    expect(entries.map((entry) => [entry.op, "entity" in entry ? entry.entity : ""])).toEqual([
      ["insert", "Task"],
      ["update", "Task"],
      ["insert", "Secret"],
      ["delete", "Task"],
    ]);
    expect(entries[1]).toMatchObject({ row: updated, previous: task, createdAt: f.clock });
    expect(entries[3]).toMatchObject({ row: null, previous: updated });
    const cursors = entries.map((entry) => entry.cursor);
    expect(cursors).toEqual([...cursors].sort((a, b) => a - b));
    expect(new Set(cursors).size).toBe(4);
    expect(published.map((batch) => batch.map((change) => change.cursor))).toEqual([
      cursors.slice(0, 3),
      cursors.slice(3),
    ]);
    expect(published[0]?.[0]).toMatchObject({ entity: "Task", op: "insert", id: task.id });
    // From `oldest - 1` everything is there (on Postgres `oldest` is 1 until something is pruned).
    const bounds = await f.log.bounds();
    expect(bounds.latest).toBe(cursors[3]);
    const resumed = await f.log.read((bounds.oldest ?? 1) - 1, 10);
    expect(resumed.map((entry) => entry.cursor)).toEqual(cursors);
  });

  it("records nothing for a rolled-back write", async () => {
    const f = fixture();
    const published: unknown[] = [];
    f.log.subscribe((changes) => published.push(changes));
    await expect(
      f.store.transaction(adminAuth, async (db) => {
        await db.insert("Task", { title: "gone", assigneeId: "alice" });
        throw new Error("rolled back");
      }),
    ).rejects.toThrow("rolled back");
    expect(await f.log.read(0, 10)).toEqual([]);
    expect(await f.log.bounds()).toEqual({ oldest: null, latest: 0 });
    expect(published).toEqual([]);
  });

  it("writes a large batch in chunks, cursors in write order", async () => {
    const f = fixture();
    const rows = await f.store.transaction(adminAuth, async (db) => {
      const inserted = [];
      for (let i = 0; i < 1200; i += 1) {
        inserted.push(await db.insert("Secret", { value: `v${i}` }));
      }
      return inserted;
    });
    const entries = await f.log.read(0, 1000);
    const rest = await f.log.read(entries.at(-1)?.cursor ?? 0, 1000);
    const all = [...entries, ...rest];
    expect(all.map((entry) => ("id" in entry ? entry.id : ""))).toEqual(rows.map((row) => row.id));
  });

  it("prunes by count and by age, always keeping the newest entry", async () => {
    const f = fixture();
    for (let i = 0; i < 5; i += 1) {
      await f.store.transaction(adminAuth, (db) => db.insert("Secret", { value: `v${i}` }));
    }
    const before = await f.log.bounds();
    const cursors = (await f.log.read(0, 10)).map((entry) => entry.cursor);
    expect(cursors).toHaveLength(5);
    // Resuming is safe from `oldest - 1`: past every pruned entry, before every kept one.
    const resumable = async () => {
      const bounds = await f.log.bounds();
      expect(bounds.latest).toBe(before.latest);
      expect(bounds.oldest).not.toBeNull();
      return (await f.log.read((bounds.oldest ?? 0) - 1, 10)).map((entry) => entry.cursor);
    };
    expect(await f.log.prune()).toBe(2);
    expect(await resumable()).toEqual(cursors.slice(2));
    f.clock += 60_001;
    expect(await f.log.prune()).toBe(2);
    expect(await resumable()).toEqual(cursors.slice(4));
    expect(await f.log.prune()).toBe(0);
    expect(await resumable()).toEqual(cursors.slice(4));
  });

  it("voids the log on truncateAll: one reset marker, then notifies", async () => {
    const f = fixture();
    let resets = 0;
    f.log.onReset(() => {
      resets += 1;
    });
    await f.store.transaction(adminAuth, (db) => db.insert("Secret", { value: "x" }));
    const { latest } = await f.log.bounds();
    await f.store.truncateAll();
    const entries = await f.log.read(0, 10);
    const marker = entries[0]?.cursor ?? 0;
    expect(entries).toEqual([{ cursor: marker, op: "reset", createdAt: f.clock }]);
    expect(marker).toBeGreaterThan(latest);
    // Every cursor from before the reset must start over.
    expect((await f.log.bounds()).oldest).toBe(marker);
    expect(resets).toBe(1);
    expect(await tables().selectFrom("svc_changes").select("seq").execute()).toHaveLength(1);
    // The next write continues above the marker: no cursor is handed out twice.
    await f.store.transaction(adminAuth, (db) => db.insert("Secret", { value: "y" }));
    const next = (await f.log.bounds()).latest;
    expect(next).toBeGreaterThan(marker);
    await f.store.truncateAll();
    await f.store.truncateAll();
    const [last] = (await f.log.read(0, 10)).map((entry) => entry.cursor);
    expect((await f.log.read(0, 10)).map((entry) => entry.op)).toEqual(["reset"]);
    expect(last).toBeGreaterThan(next);
  });
});

// Only Postgres can commit concurrent writers out of insert order.
describe.each(postgresTestDatabases())("change log commit order on $name", (database) => {
  const fixture = useSyncFixture(database);

  it("never lets a reader pass a transaction that commits late", async () => {
    // Regression guard of the ordering mechanism (the visibility horizon):
    // without it, the read while the first transaction holds answers
    // ["second"], and a reader that resumed from there would skip "first".
    const f = fixture();
    // Reads wait for the held transaction only briefly: it holds back every
    // other suite's feed on this Postgres server while it is open.
    const log = createChangeLog({ db: f.connection.db, dialect: "postgres", settleWaitMs: 50 });
    const first = f.open();
    const second = f.open();
    const event = (id: string) => ({
      entity: "Secret",
      op: "insert" as const,
      id,
      row: { id, value: id },
      previous: null,
    });
    let releaseFirst!: () => void;
    const firstHolds = new Promise<void>((resolve) => {
      releaseFirst = resolve;
    });
    let firstRecorded!: () => void;
    const firstInserted = new Promise<void>((resolve) => {
      firstRecorded = resolve;
    });
    // The first transaction logs its entry, then waits before committing.
    const t1 = first.db.transaction().execute(async (trx) => {
      await log.record(trx, [event("first")]);
      firstRecorded();
      await firstHolds;
    });
    await firstInserted;
    // The second starts later, logs, and commits first: writers never wait.
    await second.db.transaction().execute(async (trx) => {
      await log.record(trx, [event("second")]);
    });
    let seenWhileHeld: string[];
    let cursorWhileHeld: number;
    try {
      // Neither is readable yet: a reader cannot pass the first one.
      seenWhileHeld = (await log.read(0, 10)).map((entry) => ("id" in entry ? entry.id : ""));
      cursorWhileHeld = await log.latestCursor();
    } finally {
      releaseFirst();
    }
    await t1;
    expect(seenWhileHeld).toEqual([]);
    // Resuming from the cursor read meanwhile misses nothing, in one order
    // (read with the default wait: other suites' transactions may be running).
    const reader = createChangeLog({ db: f.connection.db, dialect: "postgres" });
    const entries = await reader.read(cursorWhileHeld, 10);
    expect(entries.map((entry) => ("id" in entry ? entry.id : ""))).toEqual(["first", "second"]);
  });
});
