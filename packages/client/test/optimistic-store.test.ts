import { describe, expect, it } from "vitest";
import {
  mergeOptimistic,
  type OptimisticChange,
  OptimisticStore,
  recordOptimistic,
} from "../src/optimistic.js";
import { parseQueue, serializeQueue } from "../src/queue-entries.js";

// The optimistic layer on its own: how changes apply over a view's live
// rows, and when the store lets go of them (rollback, or the server's own
// change arriving after the write succeeded).

const row = (id: string, fields: Record<string, unknown> = {}) => ({ id, ...fields });
const insert = (id: string, fields: Record<string, unknown>): OptimisticChange => ({
  op: "insert",
  entity: "Todo",
  id,
  row: fields,
});
const update = (id: string, patch: Record<string, unknown>): OptimisticChange => ({
  op: "update",
  entity: "Todo",
  id,
  patch,
});
const remove = (id: string): OptimisticChange => ({ op: "delete", entity: "Todo", id });

describe("mergeOptimistic", () => {
  const live = [row("a", { title: "A", done: false }), row("b", { title: "B", done: false })];

  it("appends an insert, changes an update in place, drops a delete", () => {
    const merged = mergeOptimistic(
      live,
      [insert("c", { title: "C", done: false }), update("a", { title: "A2" }), remove("b")],
      undefined,
    );
    expect(merged).toEqual([
      row("a", { title: "A2", done: false }),
      row("c", { title: "C", done: false }),
    ]);
  });

  it("leaves the live rows alone (same array) with no changes", () => {
    expect(mergeOptimistic(live, [], undefined)).toBe(live);
  });

  it("keeps the server's row when it already holds the inserted id", () => {
    const merged = mergeOptimistic(live, [insert("a", { title: "guess" })], undefined);
    expect(merged).toEqual(live);
  });

  it.each([
    ["an insert that fails the where is not shown", [insert("c", { done: true })], ["a", "b"]],
    ["a field the insert lacks (the server fills it) matches", [insert("c", {})], ["a", "b", "c"]],
    ["an update that leaves the where drops the row", [update("a", { done: true })], ["b"]],
    ["an update of a row the view lacks shows nothing", [update("z", { done: false })], ["a", "b"]],
    ["a later change applies over an earlier one", [insert("c", {}), remove("c")], ["a", "b"]],
  ])("%s", (_, changes, ids) => {
    const merged = mergeOptimistic(live, changes, { done: false });
    expect(merged.map((item) => item.id)).toEqual(ids);
  });
});

describe("OptimisticStore", () => {
  it("shows a batch until it is rolled back, telling the entity's listeners", () => {
    const store = new OptimisticStore();
    let told = 0;
    store.subscribe("Todo", () => {
      told += 1;
    });
    const batch = store.add([insert("a", {})]);
    expect(store.changes("Todo")).toHaveLength(1);
    expect(store.changes("List")).toEqual([]);
    batch.rollback();
    expect(store.changes("Todo")).toEqual([]);
    expect(told).toBe(2);
  });

  it("a confirmed change stays until the server's change of that row arrives", () => {
    const store = new OptimisticStore();
    const closeView = store.openView("Todo");
    const batch = store.add([insert("a", { title: "guess" })]);
    batch.sending();
    batch.confirm(row("a", { title: "stored", ownerId: "u" }));
    // The answer's row replaces the guess.
    expect(store.changes("Todo")).toEqual([insert("a", { title: "stored", ownerId: "u" })]);
    store.observeChange("Todo", "other");
    expect(store.size).toBe(1);
    store.observeChange("Todo", "a");
    expect(store.size).toBe(0);
    closeView();
  });

  it("a change seen while the write was in flight lets go at the answer", () => {
    const store = new OptimisticStore();
    store.openView("Todo");
    const batch = store.add([update("a", { title: "x" })]);
    batch.sending();
    store.observeChange("Todo", "a");
    expect(store.size).toBe(1);
    batch.confirm();
    expect(store.size).toBe(0);
  });

  it("a change seen before a resend says nothing about the resent write", () => {
    const store = new OptimisticStore();
    store.openView("Todo");
    const batch = store.add([update("a", { title: "x" })]);
    batch.sending();
    store.observeChange("Todo", "a");
    batch.sending();
    batch.confirm();
    expect(store.size).toBe(1);
  });

  it("lets go of confirmed changes on a new snapshot of the entity, or when no view is left", () => {
    const store = new OptimisticStore();
    const closeView = store.openView("Todo");
    store.add([insert("a", {})]).confirm();
    store.add([insert("b", {})]).confirm();
    const pending = store.add([insert("c", {})]);
    store.observeSnapshot("Todo");
    expect(store.changes("Todo").map((change) => change.id)).toEqual(["c"]);
    pending.confirm();
    closeView();
    expect(store.size).toBe(0);
    // With no view open, a confirmed change has nowhere to wait.
    store.add([insert("d", {})]).confirm();
    expect(store.size).toBe(0);
  });

  it("recordOptimistic answers the changes in order, minting an insert's id when none is given", () => {
    const changes = recordOptimistic((tx) => {
      const id = tx.insert("Todo", { title: "a" });
      tx.update("Todo", id, { done: true });
      tx.insert("Todo", { id: "f".repeat(40), title: "b" });
      tx.delete("List", "l");
    });
    const [first] = changes;
    expect(first?.id).toMatch(/^[0-9a-f]{40}$/);
    expect(changes).toEqual([
      insert(first?.id ?? "", { title: "a" }),
      update(first?.id ?? "", { done: true }),
      insert("f".repeat(40), { title: "b" }),
      { op: "delete", entity: "List", id: "l" },
    ]);
  });
});

describe("the stored queue", () => {
  it("round-trips its writes and skips entries that are not writes", () => {
    const write = {
      kind: "update" as const,
      entity: "Todo",
      id: "a",
      patch: { done: true },
      key: "k",
      changes: [update("a", { done: true })],
    };
    expect(parseQueue(serializeQueue([write]))).toEqual({ writes: [write], skipped: 0 });
    const text = JSON.stringify({ v: 1, writes: [write, { kind: "fn" }, { ...write, key: 1 }] });
    expect(parseQueue(text)).toEqual({ writes: [write], skipped: 2 });
  });

  it.each([
    ["nothing stored", null, 0],
    ["not JSON", "{", 1],
    ["another version", JSON.stringify({ v: 2, writes: [] }), 1],
  ])("%s yields no writes", (_, text, skipped) => {
    expect(parseQueue(text)).toEqual({ writes: [], skipped });
  });
});
