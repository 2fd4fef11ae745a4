import { describe, expect, it } from "vitest";
import { changeFrameText } from "../src/frame-text.js";
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
