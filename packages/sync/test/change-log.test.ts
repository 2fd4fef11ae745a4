import { adminAuth } from "@svc/schema";
import { testDatabases } from "@svc/tooling/databases";
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
    expect(await f.log.bounds()).toEqual({ oldest: cursors[0], latest: cursors[3] });
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
    expect(await f.log.prune()).toBe(2);
    expect(await f.log.bounds()).toEqual({ oldest: before.latest - 2, latest: before.latest });
    f.clock += 60_001;
    expect(await f.log.prune()).toBe(2);
    expect(await f.log.bounds()).toEqual({ oldest: before.latest, latest: before.latest });
    expect(await f.log.prune()).toBe(0);
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
    expect(entries).toEqual([{ cursor: latest + 1, op: "reset", createdAt: f.clock }]);
    expect(resets).toBe(1);
    expect(await tables().selectFrom("svc_changes").select("seq").execute()).toHaveLength(1);
    // The next write continues above the marker: no cursor is handed out twice.
    await f.store.transaction(adminAuth, (db) => db.insert("Secret", { value: "y" }));
    expect((await f.log.bounds()).latest).toBe(latest + 2);
    await f.store.truncateAll();
    await f.store.truncateAll();
    expect((await f.log.read(0, 10)).map((entry) => entry.cursor)).toEqual([latest + 4]);
  });
});

// Only Postgres can commit concurrent writers out of insert order.
describe.each(testDatabases().filter((database) => database.name === "postgres"))(
  "change log commit order on $name",
  (database) => {
    const fixture = useSyncFixture(database);

    it("serialises log inserts until commit, so a reader never skips a late commit", async () => {
      const f = fixture();
      const log = createChangeLog({ db: f.connection.db, dialect: "postgres" });
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
      const order: string[] = [];
      // The first transaction inserts its entry, then waits before committing.
      const t1 = first.db.transaction().execute(async (trx) => {
        await log.record(trx, [event("first")]);
        firstRecorded();
        await firstHolds;
        order.push("first commits");
      });
      await firstInserted;
      // The second starts later and would commit first without the lock.
      const t2 = second.db.transaction().execute(async (trx) => {
        await log.record(trx, [event("second")]);
        order.push("second inserted");
      });
      try {
        await new Promise((resolve) => setTimeout(resolve, 150));
        // Neither is visible yet: a reader cannot pass the first one's cursor.
        expect(await log.read(0, 10)).toEqual([]);
        expect(order).toEqual([]);
      } finally {
        releaseFirst();
      }
      await Promise.all([t1, t2]);
      expect(order).toEqual(["first commits", "second inserted"]);
      const entries = await log.read(0, 10);
      expect(entries.map((entry) => ("id" in entry ? entry.id : ""))).toEqual(["first", "second"]);
    });
  },
);
