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
