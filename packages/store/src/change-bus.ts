import type { Kysely } from "kysely";
import type { EntityTables } from "./database.js";
import type { RecordOptions } from "./last-statement.js";
import type { ChangeEvent, ChangeListener } from "./types.js";

/**
 * Where the store sends committed changes. The in-process bus
 * (`createMemoryChangeBus`, the default) only fans out after commit; a
 * durable bus (@svc/sync's change log) also writes its entries inside the
 * write's transaction (an outbox), so an acknowledged write is always
 * recorded and a rolled-back one never is.
 *
 * @example
 * const bus = createMemoryChangeBus();
 * const store = createStore({ db, dialect, manifest, changeBus: bus });
 * bus.subscribe((events) => console.log(events.length));
 */
export interface ChangeBus<TEvent extends ChangeEvent = ChangeEvent> {
  /**
   * Inside the write's transaction, after the work and before commit: a
   * durable bus writes its log entries here. Throwing rolls the write back.
   * Called once per transaction that changed something, with the same array
   * `publish` gets afterwards. The store passes `{ last: true }`: nothing
   * but the commit follows (see `COMMIT_WITH_THIS`).
   */
  record?(
    db: Kysely<EntityTables>,
    events: readonly ChangeEvent[],
    options?: RecordOptions,
  ): Promise<void>;
  /** After commit, once per committed transaction that changed something, in commit order. */
  publish(events: readonly ChangeEvent[]): void;
  /** Adds a listener of published batches; returns the unsubscribe function. */
  subscribe(listener: ChangeListener<TEvent>): () => void;
  /**
   * Inside `truncateAll`'s transaction: a durable bus voids its log here
   * (every earlier cursor must start over).
   */
  recordReset?(db: Kysely<EntityTables>): Promise<void>;
  /** After `truncateAll` commits: tells subscribers every earlier change is void. */
  publishReset?(): void;
}

/** Options of `createMemoryChangeBus`. */
export interface MemoryChangeBusOptions {
  /**
   * Called when a listener throws; the write has committed and the caller
   * is not affected. Default: logs to `console.error`.
   */
  readonly onListenerError?: (error: unknown) => void;
}

function reportListenerError(error: unknown): void {
  console.error("[@svc/store] a change listener threw", error);
}

/** Calls every listener with `events`; a throwing listener is reported, never rethrown. */
export function notifyListeners<TEvent extends ChangeEvent>(
  listeners: ReadonlySet<ChangeListener<TEvent>>,
  events: readonly TEvent[],
  onListenerError: (error: unknown) => void = reportListenerError,
): void {
  for (const listener of [...listeners]) {
    try {
      listener(events);
    } catch (error) {
      try {
        onListenerError(error);
      } catch {
        // A failing error reporter must not fail the committed write either.
      }
    }
  }
}

/**
 * The in-process change bus: listeners are called synchronously after each
 * commit, in subscription order. Nothing is written to the database.
 */
export function createMemoryChangeBus(options: MemoryChangeBusOptions = {}): ChangeBus {
  const onListenerError = options.onListenerError ?? reportListenerError;
  const listeners = new Set<ChangeListener>();
  return {
    publish: (events) => notifyListeners(listeners, events, onListenerError),
    subscribe(listener) {
      listeners.add(listener);
      return () => {
        listeners.delete(listener);
      };
    },
  };
}
