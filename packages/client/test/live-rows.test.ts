import { describe, expect, it } from "vitest";
import type { ChangeFrame } from "../src/live-frames.js";
import { RowSet } from "../src/live-rows.js";

const change = (op: ChangeFrame["op"], rowId: string, title?: string): ChangeFrame => ({
  type: "change",
  id: "1",
  op,
  rowId,
  cursor: "1",
  ...(title !== undefined && { row: { id: rowId, title } }),
});

const titles = (set: RowSet): unknown[] => set.rows.map((row) => row.title);

describe("RowSet", () => {
  it("keeps the snapshot's order, appends inserts, updates in place, drops deletes and removes", () => {
    const set = new RowSet();
    set.replace([
      { id: "b", title: "B" },
      { id: "a", title: "A" },
    ]);
    expect(set.apply(change("insert", "c", "C"))).toBe(true);
    expect(set.apply(change("update", "b", "B2"))).toBe(true);
    expect(titles(set)).toEqual(["B2", "A", "C"]);
    expect(set.apply(change("remove", "b"))).toBe(true);
    expect(set.apply(change("delete", "c"))).toBe(true);
    expect(titles(set)).toEqual(["A"]);
    // An update of a row not in view (it moved into the view) is an upsert: appended.
    expect(set.apply(change("update", "d", "D"))).toBe(true);
    expect(titles(set)).toEqual(["A", "D"]);
  });

  it("gives a new array per change and keeps it otherwise", () => {
    const set = new RowSet();
    set.replace([{ id: "a", title: "A" }]);
    const before = set.rows;
    expect(set.apply(change("remove", "missing"))).toBe(false);
    expect(set.rows).toBe(before);
    set.apply(change("update", "a", "A2"));
    expect(set.rows).not.toBe(before);
    expect(before.map((row) => row.title)).toEqual(["A"]);
  });

  it("clear reports whether there was anything to clear", () => {
    const set = new RowSet();
    expect(set.clear()).toBe(false);
    set.replace([{ id: "a", title: "A" }]);
    expect(set.clear()).toBe(true);
    expect(set.rows).toEqual([]);
  });
});
