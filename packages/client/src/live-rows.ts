import type { ChangeFrame, LiveRow } from "./live-frames.js";

/**
 * The rows of one entity subscription, in the order the client shows them:
 * the snapshot's order (the subscription's `orderBy`), then rows that came
 * into view afterwards, appended as they arrived. An update keeps a row in
 * its place; `delete` and `remove` drop it. Every change yields a new
 * array, so a listener (or React) can compare by reference.
 */
export class RowSet<TRow extends LiveRow = LiveRow> {
  // A Map keeps insertion order, which is exactly the order above.
  #rows = new Map<string, TRow>();
  #array: readonly TRow[] = [];

  /** The rows now, in order; the same array until the next change. */
  get rows(): readonly TRow[] {
    return this.#array;
  }

  /** Replaces every row with a snapshot's. */
  replace(rows: readonly TRow[]): void {
    this.#rows = new Map(rows.map((row) => [row.id, row]));
    this.#array = [...this.#rows.values()];
  }

  /** Applies one change (updates are upserts); returns whether the rows changed. */
  apply(change: ChangeFrame): boolean {
    if (change.op === "delete" || change.op === "remove") {
      if (!this.#rows.delete(change.rowId)) return false;
    } else {
      if (change.row === undefined) return false;
      this.#rows.set(change.rowId, change.row as TRow);
    }
    this.#array = [...this.#rows.values()];
    return true;
  }

  /** Drops every row (the caller's identity changed). */
  clear(): boolean {
    if (this.#rows.size === 0) return false;
    this.replace([]);
    return true;
  }
}
