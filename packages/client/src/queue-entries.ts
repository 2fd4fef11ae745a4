import type { EntityWrite } from "./entities.js";
import type { OptimisticChange } from "./optimistic.js";

/**
 * One write held by the write queue, as it is stored: plain JSON. `key` is
 * its `Idempotency-Key`, made when it was queued and sent with every
 * attempt, so the server applies it once; `changes` are the optimistic
 * changes it shows until it is applied or dropped.
 */
export type QueuedWrite = (
  | { readonly kind: "fn"; readonly name: string; readonly args: unknown }
  | EntityWrite
) & {
  readonly key: string;
  readonly changes: readonly OptimisticChange[];
};

/** The stored form's version. */
const FORMAT = 1;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

const isText = (value: unknown): value is string => typeof value === "string" && value !== "";

function isChange(value: unknown): value is OptimisticChange {
  if (!isRecord(value) || !isText(value.entity) || !isText(value.id)) return false;
  switch (value.op) {
    case "insert":
      return isRecord(value.row);
    case "update":
      return isRecord(value.patch);
    case "delete":
      return true;
    default:
      return false;
  }
}

function isQueuedWrite(value: unknown): value is QueuedWrite {
  if (!isRecord(value) || !isText(value.key)) return false;
  if (!Array.isArray(value.changes) || !value.changes.every(isChange)) return false;
  switch (value.kind) {
    case "fn":
      return isText(value.name);
    case "insert":
      return isText(value.entity) && isRecord(value.data);
    case "update":
      return isText(value.entity) && isText(value.id) && isRecord(value.patch);
    case "delete":
      return isText(value.entity) && isText(value.id);
    default:
      return false;
  }
}

/** The queue as stored text. */
export function serializeQueue(writes: readonly QueuedWrite[]): string {
  return JSON.stringify({ v: FORMAT, writes });
}

/**
 * The writes a stored queue holds, oldest first. Text that is not a queue
 * of this format yields none; an entry that is not a write is skipped
 * (`skipped` counts them).
 */
export function parseQueue(text: string | null | undefined): {
  writes: QueuedWrite[];
  skipped: number;
} {
  if (text === null || text === undefined || text === "") return { writes: [], skipped: 0 };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { writes: [], skipped: 1 };
  }
  if (!isRecord(value) || value.v !== FORMAT || !Array.isArray(value.writes)) {
    return { writes: [], skipped: 1 };
  }
  const writes = value.writes.filter(isQueuedWrite);
  return { writes, skipped: value.writes.length - writes.length };
}
