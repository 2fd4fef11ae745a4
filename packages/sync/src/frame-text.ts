import type { LoggedChange } from "./change-log.js";
import type { PulledChange } from "./visibility.js";

// Every subscriber of a change gets the same row, and most subscribers of
// one entity use the same subscription id: a change frame is written (and
// encoded) once per change, op and id, not once per subscriber. This is
// the fan-out's hot path.
const rowTexts = new WeakMap<object, string>();
const frameBytes = new WeakMap<LoggedChange, Map<string, Buffer>>();

function rowText(row: object): string {
  let text = rowTexts.get(row);
  if (text === undefined) {
    text = JSON.stringify(row);
    rowTexts.set(row, text);
  }
  return text;
}

/**
 * The JSON text of a `change` frame, exactly as `JSON.stringify` writes the
 * `ChangeFrame` object (same keys, same order), with the row's JSON shared
 * by every subscriber of the change. `idText` is the subscription id as
 * JSON (`JSON.stringify(id)`), computed once per subscription.
 */
export function changeFrameText(idText: string, view: PulledChange): string {
  const row = view.row === undefined ? "" : `,"row":${rowText(view.row)}`;
  return `{"type":"change","id":${idText},"op":"${view.op}"${row},"rowId":${JSON.stringify(view.rowId)},"cursor":"${view.cursor}"}`;
}

/** What a subscriber is sent of `change` when it sees it as `op` (the row only with insert and update). */
export function changeView(change: LoggedChange, op: PulledChange["op"]): PulledChange {
  const base = { cursor: String(change.cursor), entity: change.entity, rowId: change.id };
  return (op === "insert" || op === "update") && change.row !== null
    ? { ...base, op, row: change.row }
    : { ...base, op };
}

/** `changeFrameText` as UTF-8, shared by every subscriber of `change` with the same id and op. */
export function changeFrameBytes(
  change: LoggedChange,
  idText: string,
  op: PulledChange["op"],
): Buffer {
  let byKey = frameBytes.get(change);
  if (byKey === undefined) {
    byKey = new Map();
    frameBytes.set(change, byKey);
  }
  const key = `${op}\u0000${idText}`;
  let bytes = byKey.get(key);
  if (bytes === undefined) {
    bytes = Buffer.from(changeFrameText(idText, changeView(change, op)));
    byKey.set(key, bytes);
  }
  return bytes;
}

/**
 * The JSON text of a `snapshot` frame from the JSON text of its rows
 * (`JSON.stringify(rows)`), exactly as `JSON.stringify` writes the
 * `SnapshotFrame`: the rows are stringified once, measured and sent as they are.
 */
export function snapshotFrameText(idText: string, rowsText: string, cursor: number): string {
  return `{"type":"snapshot","id":${idText},"rows":${rowsText},"cursor":"${cursor}"}`;
}

/**
 * The JSON text of a live query's `result` frame from the JSON text of its
 * value, exactly as `JSON.stringify` writes the `ResultFrame`.
 */
export function resultFrameText(idText: string, valueText: string, cursor: number): string {
  return `{"type":"result","id":${idText},"value":${valueText},"cursor":"${cursor}"}`;
}

/**
 * Whether `text` is more than `max` bytes of UTF-8. Counting is skipped when
 * the length decides: a UTF-16 unit is 1 to 3 bytes of UTF-8.
 */
export function exceedsBytes(text: string, max: number): boolean {
  if (text.length > max) return true;
  if (text.length * 3 <= max) return false;
  return Buffer.byteLength(text, "utf8") > max;
}
