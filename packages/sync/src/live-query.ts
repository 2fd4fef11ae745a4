import { createHash } from "node:crypto";
import type { AuthContext } from "@svc/schema";
import type { LoggedChange } from "./change-log.js";
import type { Sync } from "./create-sync.js";
import { SyncError } from "./errors.js";
import { exceedsBytes, resultFrameText } from "./frame-text.js";
import type { LoadLimiter } from "./load-scheduler.js";
import { watchedEntities } from "./read-tracking.js";
import type { LiveQueryFrame } from "./ws-frames.js";

// Values up to this many characters are compared as they are; longer ones by a digest.
const VERBATIM_CHARS = 1024;

/**
 * What is kept of the last value sent, to tell whether a new one differs:
 * short values themselves, longer ones as their SHA-256 ("#" + base64, which
 * no JSON text starts with), so an open query does not hold a large value.
 */
function fingerprintOf(text: string): string {
  if (text.length <= VERBATIM_CHARS) return text;
  return `#${createHash("sha256").update(text).digest("base64")}`;
}

function resultTooLarge(max: number): SyncError {
  return new SyncError("RESULT_TOO_LARGE", {
    message: `The live query's value is larger than ${max} bytes; return less (a page, a count).`,
  });
}

/** One open live query of a session. */
export interface LiveQuery {
  readonly id: string;
  /** Marks the query stale when a batch touches what it watches (reruns are coalesced). */
  deliver(changes: readonly LoggedChange[]): void;
  /** Reruns after a reset of the log (the data may be gone). */
  reset(): void;
  /** Stops reruns; a run in flight sends nothing. */
  close(): void;
}

/** What a live query needs from its session. */
export interface LiveQueryContext {
  readonly sync: Sync;
  readonly auth: AuthContext;
  /** Sends a `result` frame already written as UTF-8 JSON, with its cursor. */
  readonly sendEncoded: (encoded: Buffer, cursor: number) => void;
  /** The connection's limiter: each run waits for a slot. */
  readonly loads: LoadLimiter;
  /** Reports a run's failure to the client; the query is closed. */
  readonly fail: (id: string, error: unknown) => void;
}

/**
 * Opens a live query: runs the query function at once and sends its value
 * as a `result`, then reruns it whenever a committed change touches an
 * entity it read (or one its read rules look up with `exists(...)`) and
 * sends a `result` only when the value differs from the last one sent.
 * Changes that arrive while a run is in flight cost one more run, not one
 * each. Each result carries the log's cursor taken before its run: every
 * change up to it is reflected in the value. A value whose frame is larger
 * than the sync's `maxResultBytes` closes the query with `RESULT_TOO_LARGE`.
 * Runs take a slot of the connection's limiter, and only a fingerprint of
 * the last value sent is kept, so many open queries hold little memory.
 */
export function openLiveQuery(frame: LiveQueryFrame, context: LiveQueryContext): LiveQuery {
  const { sync, auth, sendEncoded, loads, fail } = context;
  const runner = sync.queries;
  const idText = JSON.stringify(frame.id);
  let watched: ReadonlySet<string> = new Set();
  /** The fingerprint of the last value sent (see `fingerprintOf`). */
  let lastSent: string | undefined;
  /** Changes at or before this cursor are in the last value. */
  let cursor = 0;
  let state: "idle" | "scheduled" | "running" = "idle";
  /** Changes published while a run is in flight (its read set is not known yet). */
  let arrived: { entity: string; cursor: number }[] = [];
  let closed = false;
  let resetWhileRunning = false;

  const stop = (error: unknown): void => {
    if (closed) return;
    closed = true;
    fail(frame.id, error);
  };

  /** One run in a slot of the connection's limiter: the cursor before it, or null once the query closed. */
  const runOnce = async (): Promise<number | null> => {
    if (runner === undefined) throw new Error("live queries are not configured");
    if (closed) return null;
    const before = await sync.log.latestCursor();
    const { value, reads } = await runner.run(frame.query, frame.args ?? {}, auth);
    if (closed) return null;
    cursor = before;
    watched = watchedEntities(reads, sync.readDependencies);
    const text = JSON.stringify(value ?? null) ?? "null";
    const max = sync.limits.maxResultBytes;
    if (exceedsBytes(text, max)) throw resultTooLarge(max);
    const fingerprint = fingerprintOf(text);
    if (fingerprint !== lastSent) {
      const encoded = Buffer.from(resultFrameText(idText, text, before));
      if (encoded.length > max) throw resultTooLarge(max);
      lastSent = fingerprint;
      sendEncoded(encoded, before);
    }
    return before;
  };

  const run = async (): Promise<void> => {
    state = "running";
    arrived = [];
    resetWhileRunning = false;
    const before = await loads.run(runOnce);
    if (before === null) return;
    const stale =
      resetWhileRunning ||
      arrived.some((change) => change.cursor > before && watched.has(change.entity));
    arrived = [];
    state = "idle";
    if (stale) schedule();
  };

  // Runs are scheduled, not started inline: the batches of one burst
  // arrive in one turn of the event loop and cost a single run.
  function schedule(): void {
    if (closed || state !== "idle") return;
    state = "scheduled";
    setImmediate(() => {
      if (!closed) run().catch(stop);
    });
  }

  run().catch(stop);

  return {
    id: frame.id,
    deliver(changes) {
      if (closed) return;
      if (state === "running") {
        for (const change of changes)
          arrived.push({ entity: change.entity, cursor: change.cursor });
      } else if (changes.some((change) => change.cursor > cursor && watched.has(change.entity))) {
        schedule();
      }
    },
    reset() {
      // Everything may be gone: run again once the current run, if any, ends.
      if (state === "running") resetWhileRunning = true;
      else schedule();
    },
    close() {
      closed = true;
    },
  };
}
