import type { EntityReader, Row } from "@svc/store";
import { DEFAULT_LIMIT } from "@svc/store";
import { SyncError } from "./errors.js";
import type { SubscribeFrame } from "./ws-frames.js";

// Rows read per store query while a snapshot loads, at most.
const MAX_PAGE_ROWS = 100;

/** The average JSON length of an entity's snapshot rows, as last seen; sizes the first page. */
export type RowSizeHints = Map<string, number>;

// Per sync (any owner object): shared by its sessions, gone with it.
const hintsByOwner = new WeakMap<object, RowSizeHints>();

/** The row size hints of `owner` (a `Sync`), made on first use. */
export function rowSizeHintsOf(owner: object): RowSizeHints {
  let hints = hintsByOwner.get(owner);
  if (hints === undefined) {
    hints = new Map();
    hintsByOwner.set(owner, hints);
  }
  return hints;
}

/** `SNAPSHOT_TOO_LARGE` naming the bound. */
export function snapshotTooLarge(max: number): SyncError {
  return new SyncError("SNAPSHOT_TOO_LARGE", {
    message: `The snapshot is larger than ${max} bytes; subscribe with a smaller limit or a narrower where.`,
  });
}

/** Rows worth reading next: enough to pass `room` at `average` characters a row, 1 to 100. */
function pageRows(average: number | undefined, room: number): number {
  if (average === undefined || average <= 0) return MAX_PAGE_ROWS;
  return Math.max(1, Math.min(MAX_PAGE_ROWS, Math.ceil(room / average) + 1));
}

/** What `readSnapshotRows` needs. */
export interface SnapshotRead {
  readonly reader: EntityReader;
  readonly frame: SubscribeFrame;
  /** `maxSnapshotBytes`. */
  readonly max: number;
  readonly hints: RowSizeHints;
  /** False once the subscription is gone: reading stops. */
  readonly active: () => boolean;
}

/**
 * The snapshot's rows as JSON text (`JSON.stringify(rows)`), read through
 * the store in pages and written row by row. Throws `SNAPSHOT_TOO_LARGE` as
 * soon as the text is sure to pass `max` (each UTF-16 unit is at least one
 * byte), so what is held stays near the bound whatever `limit` asked for.
 * Pages are sized from the rows seen so far, and the first one from the
 * entity's last snapshot, so a table of large rows is not read a hundred
 * rows at a time just to be refused, while small rows take one query.
 */
export async function readSnapshotRows(read: SnapshotRead): Promise<string> {
  const { reader, frame, max, hints } = read;
  const texts: string[] = [];
  // Pages are read one after another: a row moved by a write between two
  // reads could come twice (its change follows the snapshot anyway).
  const seen = new Set<string>();
  let units = 2;
  let remaining = frame.limit ?? DEFAULT_LIMIT;
  let after: string | undefined;
  let rows = 0;
  try {
    while (remaining > 0 && read.active()) {
      const average = rows === 0 ? hints.get(frame.entity) : (units - 2) / rows;
      const page: { rows: Row[]; nextCursor: string | null } = await reader.query(frame.entity, {
        ...(frame.where !== undefined && { where: frame.where }),
        ...(frame.orderBy !== undefined && { orderBy: frame.orderBy }),
        limit: Math.min(remaining, pageRows(average, max - units)),
        ...(after !== undefined && { cursor: after }),
      });
      for (const row of page.rows) {
        if (seen.has(row.id)) continue;
        seen.add(row.id);
        const text = JSON.stringify(row);
        texts.push(text);
        rows += 1;
        units += text.length + 1;
        if (units > max) throw snapshotTooLarge(max);
      }
      remaining -= page.rows.length;
      if (page.nextCursor === null) break;
      after = page.nextCursor;
    }
  } finally {
    if (rows > 0) hints.set(frame.entity, (units - 2) / rows);
  }
  return `[${texts.join(",")}]`;
}
