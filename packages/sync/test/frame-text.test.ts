import { describe, expect, it } from "vitest";
import {
  changeFrameText,
  exceedsBytes,
  resultFrameText,
  snapshotFrameText,
} from "../src/frame-text.js";
import type { PulledChange } from "../src/index.js";

// The fan-out writes change frames by hand; they must be exactly what
// JSON.stringify makes of the frame object.

describe("changeFrameText", () => {
  const row = {
    id: "a".repeat(40),
    title: 'quote " and \u2028 and emoji 😀',
    n: 1.5,
    nested: { x: [1, null] },
  };
  it.each<PulledChange>([
    { cursor: "7", entity: "Task", op: "insert", rowId: row.id, row },
    { cursor: "8", entity: "Task", op: "update", rowId: row.id, row },
    { cursor: "9", entity: "Task", op: "remove", rowId: row.id },
    { cursor: "10", entity: "Task", op: "delete", rowId: row.id },
  ])("writes the $op frame as JSON.stringify does", (view) => {
    const id = 'sub "1"';
    const frame = {
      type: "change",
      id,
      op: view.op,
      ...(view.row !== undefined && { row: view.row }),
      rowId: view.rowId,
      cursor: view.cursor,
    };
    expect(changeFrameText(JSON.stringify(id), view)).toBe(JSON.stringify(frame));
  });
});

describe("snapshotFrameText and resultFrameText", () => {
  const row = { id: "b".repeat(40), title: 'a "quoted" title \u2028 😀', meta: { n: [1, null] } };
  const id = 'sub "2"';

  it.each([[[]], [[row]], [[row, { ...row, id: "c".repeat(40) }]]])(
    "write a snapshot of %j rows as JSON.stringify does",
    (rows) => {
      const frame = { type: "snapshot", id, rows, cursor: "12" };
      expect(snapshotFrameText(JSON.stringify(id), JSON.stringify(rows), 12)).toBe(
        JSON.stringify(frame),
      );
    },
  );

  it.each([[null], [0], ["text"], [[row]], [{ total: 3, rows: [row] }]])(
    "write a result of %j as JSON.stringify does",
    (value) => {
      const frame = { type: "result", id, value, cursor: "5" };
      expect(resultFrameText(JSON.stringify(id), JSON.stringify(value), 5)).toBe(
        JSON.stringify(frame),
      );
    },
  );
});

describe("exceedsBytes", () => {
  it.each([
    ["ASCII at the bound", "x".repeat(10), 10, false],
    ["ASCII past the bound", "x".repeat(11), 10, true],
    ["two-byte characters past it", "é".repeat(6), 11, true],
    ["two-byte characters at it", "é".repeat(6), 12, false],
    ["an emoji (4 bytes, 2 units)", "😀", 3, true],
    ["an emoji at its size", "😀", 4, false],
  ])("%s", (_label, text, max, expected) => {
    expect(exceedsBytes(text, max)).toBe(expected);
  });
});
