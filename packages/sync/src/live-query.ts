import type { AuthContext } from "@svc/schema";
import type { LoggedChange } from "./change-log.js";
import type { Sync } from "./create-sync.js";
import { watchedEntities } from "./read-tracking.js";
import type { LiveQueryFrame, ServerFrame } from "./ws-frames.js";

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
  readonly send: (frame: ServerFrame) => void;
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
 * change up to it is reflected in the value.
 */
export function openLiveQuery(frame: LiveQueryFrame, context: LiveQueryContext): LiveQuery {
  const { sync, auth, send, fail } = context;
  const runner = sync.queries;
  let watched: ReadonlySet<string> = new Set();
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

  const run = async (): Promise<void> => {
    if (runner === undefined) throw new Error("live queries are not configured");
    state = "running";
    arrived = [];
    resetWhileRunning = false;
    const before = await sync.log.latestCursor();
    const { value, reads } = await runner.run(frame.query, frame.args ?? {}, auth);
    if (closed) return;
    cursor = before;
    watched = watchedEntities(reads, sync.readDependencies);
    const text = JSON.stringify(value ?? null);
    if (text !== lastSent) {
      lastSent = text;
      send({ type: "result", id: frame.id, value: value ?? null, cursor: String(before) });
    }
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
