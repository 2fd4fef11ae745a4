import { sql } from "kysely";
import { describe, expect, it, vi } from "vitest";
import {
  adminAuth,
  type ChangeBus,
  type ChangeEvent,
  createMemoryChangeBus,
  type Store,
} from "../src/index.js";
import { databases, expectStoreError, useStore } from "./fixture.js";

// The bus is injected: a custom bus records inside the write's transaction
// (it sees the uncommitted rows) and publishes after commit; a rolled-back
// write reaches neither.

type Step = { kind: "record" | "publish"; events: readonly ChangeEvent[]; committed?: number };

/** A bus that notes what it was called with and what it could see in the transaction. */
function spyBus(): ChangeBus & { steps: Step[]; resets: string[]; failRecord?: Error } {
  const inner = createMemoryChangeBus();
  const bus: ChangeBus & { steps: Step[]; resets: string[]; failRecord?: Error } = {
    steps: [],
    resets: [],
    async record(db, events) {
      if (bus.failRecord !== undefined) throw bus.failRecord;
      const counted = await sql<{ n: number | string }>`select count(*) as n from ${sql.table(
        "List",
      )}`.execute(db);
      bus.steps.push({ kind: "record", events, committed: Number(counted.rows[0]?.n) });
    },
    publish(events) {
      bus.steps.push({ kind: "publish", events });
      inner.publish(events);
    },
    subscribe: (listener) => inner.subscribe(listener),
    async recordReset() {
      bus.resets.push("record");
    },
    publishReset() {
      bus.resets.push("publish");
    },
  };
  return bus;
}

describe.each(databases)("injected change bus on $name", (database) => {
  const fixture = useStore(database);
  const withBus = (): { store: Store; bus: ReturnType<typeof spyBus> } => {
    const bus = spyBus();
    return { store: fixture().reopen({ changeBus: bus }), bus };
  };

  it("records inside the transaction, then publishes the same batch after commit", async () => {
    const { store, bus } = withBus();
    const listener = vi.fn();
    store.onChange(listener);
    const row = await store.transaction(adminAuth, async (db) => {
      const inserted = await db.insert("List", { title: "a" });
      expect(bus.steps).toEqual([]);
      return inserted;
    });
    expect(bus.steps.map((step) => step.kind)).toEqual(["record", "publish"]);
    // The record step ran in the transaction: it saw its own uncommitted insert.
    expect(bus.steps[0]?.committed).toBe(1);
    expect(bus.steps[0]?.events).toBe(bus.steps[1]?.events);
    expect(bus.steps[1]?.events).toStrictEqual([
      { entity: "List", op: "insert", id: row.id, row, previous: null },
    ]);
    expect(listener).toHaveBeenCalledWith(bus.steps[1]?.events);
  });

  it("records and publishes nothing for a rolled-back or read-only transaction", async () => {
    const { store, bus } = withBus();
    const failure = new Error("work failed");
    await expect(
      store.transaction(adminAuth, async (db) => {
        await db.insert("List", { title: "gone" });
        throw failure;
      }),
    ).rejects.toBe(failure);
    await store.transaction(adminAuth, (db) => db.query("List"));
    expect(bus.steps).toEqual([]);
  });

  it("rolls the write back when recording fails, and publishes nothing", async () => {
    const { store, bus } = withBus();
    bus.failRecord = new Error("log unavailable");
    await expectStoreError(
      store.frameworkTransaction(adminAuth, (tx) => tx.entities.insert("List", { title: "x" })),
      "DATABASE_ERROR",
    );
    expect(bus.steps).toEqual([]);
    expect((await store.reader(adminAuth).query("List")).rows).toEqual([]);
  });

  it("records delete hooks' writes in the same batch", async () => {
    const { store, bus } = withBus();
    const list = await store.transaction(adminAuth, (db) => db.insert("List", { title: "l" }));
    store.onBeforeDelete("List", async ({ db }) => {
      await db.insert("Node", { label: "tombstone" });
    });
    await store.transaction(adminAuth, (db) => db.delete("List", list.id));
    const recorded = bus.steps.filter((step) => step.kind === "record").at(-1);
    expect(recorded?.events.map((event) => `${event.entity}:${event.op}`)).toEqual([
      "Node:insert",
      "List:delete",
    ]);
  });

  it("lets the bus void its log on truncateAll, in the transaction, then tells subscribers", async () => {
    const { store, bus } = withBus();
    await store.truncateAll();
    expect(bus.resets).toEqual(["record", "publish"]);
  });

  it("keeps the default in-process bus when none is given", async () => {
    const listener = vi.fn();
    fixture().store.onChange(listener);
    await fixture().store.transaction(adminAuth, (db) => db.insert("List", { title: "a" }));
    expect(listener).toHaveBeenCalledTimes(1);
  });
});
