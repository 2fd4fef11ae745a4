import {
  type ChangeBus,
  type ChangeEvent,
  type ChangeListener,
  dialectFor,
  type EntityTables,
  notifyListeners,
  type RecordOptions,
  type Row,
  type StoreDialect,
} from "@svc/store";
import { CompiledQuery, type Kysely, sql } from "kysely";
import { ChangeFeedError, createPgFeed, type ListenOptions, type PgFeed } from "./pg-feed.js";
import {
  awaitHorizon,
  committedTop,
  countPositioned,
  insertPositioned,
  positionBounds,
  prunePositioned,
  readPositioned,
  SETTLE_WAIT_MS,
} from "./pg-positions.js";
import { CHANGES_TABLE, type ChangesTable, type SyncTables } from "./tables.js";

/** A committed change with its place in the log. */
export interface LoggedChange extends ChangeEvent {
  /** The entry's sequence number: strictly increasing in commit order. */
  readonly cursor: number;
}

/** The marker a reset (`store.truncateAll()`) leaves: every earlier cursor must start over. */
export interface ResetEntry {
  readonly cursor: number;
  readonly op: "reset";
}

/** One entry as `read` returns it. */
export type LogEntry = (LoggedChange | ResetEntry) & {
  /** When the entry was written (unix ms). */
  readonly createdAt: number;
};

/** The cursors a reader may resume from: `oldest - 1` through `latest`. */
export interface LogBounds {
  /** The oldest retained entry's cursor; null while the log is empty. */
  readonly oldest: number | null;
  /** The newest committed entry's cursor; 0 while nothing was ever logged. */
  readonly latest: number;
}

/** How long entries are kept; `prune()` applies it. */
export interface RetentionOptions {
  /** Entries older than this are pruned. Default 7 days. */
  readonly maxAgeMs?: number;
  /** At most this many of the newest entries are kept. Default 1,000,000. */
  readonly maxEntries?: number;
}

/** One run of entries the cross-server tail handed to subscribers. */
export interface FeedDelivery {
  /** How many entries the run held. */
  readonly entries: number;
  /**
   * `now()` at delivery minus the oldest entry's `createdAt` (the writing
   * server's clock when it logged the entry, so clock skew between servers
   * adds to it), at least 0. 0 without `listen`: the committing call hands
   * its own changes over.
   */
  readonly lagMs: number;
}

/**
 * Metrics hooks of `createChangeLog`: each is called synchronously and
 * should only count (a throwing one is reported to `onListenerError`; the
 * write or the delivery goes on).
 */
export interface ChangeLogObserver {
  /** After each committed write transaction this log recorded: how many changes it logged. */
  onPublish?(changes: number): void;
  /**
   * After each run of entries handed to subscribers (with `listen`: by the
   * tail, in batches of up to 500 split at reset markers; without: the
   * committing transaction's changes).
   */
  onDelivery?(delivery: FeedDelivery): void;
  /**
   * Postgres: after `read` and `bounds` (pulls, snapshot cursors) waited for
   * older transactions to end, how long in milliseconds (0 when nothing was
   * held back, the usual case). `prune` is not counted.
   */
  onHorizonWait?(waitedMs: number): void;
}

/** Where the cross-server tail stands (`feedStatus()`), for metrics. */
export interface FeedStatus {
  /** Whether the listener connection is up with `LISTEN` active. */
  readonly listening: boolean;
  /**
   * How long the tail has been behind a commit it knows of after reading
   * it, in milliseconds of `now`: an older transaction still open somewhere
   * in the database holds the entry back (or reading fails). 0 while caught up.
   */
  readonly heldMs: number;
  /**
   * Entries logged after the last delivered one, up to the newest commit the
   * tail knows of (counted up to 10,000 with one index range scan; 0 without
   * a query while caught up).
   */
  readonly pendingEntries: number;
  /**
   * With `listen.onDemand`: true while nothing holds `follow()` and the
   * tail reads no other server's commits (the server has no live client).
   */
  readonly paused: boolean;
  /** With `listen.onDemand`: how many times the tail started following. */
  readonly resumes: number;
}

/** `feedStatus()` counts pending entries up to this many. */
const PENDING_COUNT_CAP = 10_000;

/** Options of `createChangeLog`. */
export interface ChangeLogOptions {
  /** The application database (the store's `db`): entries are written in the store's transactions. */
  readonly db: Kysely<EntityTables>;
  readonly dialect: StoreDialect;
  readonly retention?: RetentionOptions;
  /** Milliseconds since the epoch. Default `Date.now`. */
  readonly now?: () => number;
  /** Called when a subscriber throws. Default: logs to `console.error`. */
  readonly onListenerError?: (error: unknown) => void;
  /**
   * Postgres: how long `read`, `bounds` (and so `latestCursor`) and `prune`
   * wait for transactions older than the call to end, so they reflect every
   * earlier commit. Default 5 s.
   */
  readonly settleWaitMs?: number;
  /**
   * Postgres only: deliver every server's commits, not just this process's.
   * `record` also notifies the channel in the write's transaction (delivered
   * at commit, never for a rollback); a listener connection of its own
   * wakes an ordered tail that reads the log and hands subscribers each
   * entry once, in cursor order. Unset (the default), subscribers get this
   * process's commits straight from `publish`. Throws `ChangeFeedError`
   * `LISTEN_REQUIRES_POSTGRES` with another dialect, `INVALID_CHANNEL` for a
   * bad channel.
   */
  readonly listen?: ListenOptions;
  /**
   * Called with the feed's failures (a lost listener connection, a failed
   * read); the feed retries by itself. Default: logs to `console.error`.
   */
  readonly onError?: (error: unknown) => void;
  /** Metrics hooks (entries delivered and their lag, transaction sizes, horizon waits). Default none. */
  readonly observer?: ChangeLogObserver;
}

/**
 * The durable change bus: a change log in the application database, written
 * inside each write's transaction, read by cursor.
 */
export interface ChangeLog extends ChangeBus<LoggedChange> {
  record(
    db: Kysely<EntityTables>,
    events: readonly ChangeEvent[],
    options?: RecordOptions,
  ): Promise<void>;
  recordReset(db: Kysely<EntityTables>): Promise<void>;
  publishReset(): void;
  /** Subscribes to resets (after `truncateAll` commits); returns the unsubscribe function. */
  onReset(listener: () => void): () => void;
  /**
   * With `listen.onDemand`: holds the tail following other servers'
   * commits until the returned function is called (svc's server holds it
   * while a live connection is open). The first holder resumes a paused
   * tail from the newest entry: take cursors (`latestCursor`, `bounds`)
   * after calling it, and catch up from older ones with `read`. Without
   * `onDemand` every commit is delivered anyway: it only starts the listener.
   */
  follow(): () => void;
  /**
   * Whether subscribers get every commit now: always without `listen`;
   * with it, once the tail has its start point, and not while it is
   * paused. A cache kept up to date by the subscribers is only current
   * while this holds.
   */
  following(): boolean;
  /**
   * With `listen.onDemand`: called with false when the tail pauses and
   * with true when it follows again (changes committed while it was
   * paused were never delivered: drop what was cached from them).
   * Returns the unsubscribe function.
   */
  onFollowing(listener: (following: boolean) => void): () => void;
  /** Up to `limit` entries after `since`, oldest first (reset markers included). */
  read(since: number, limit: number): Promise<LogEntry[]>;
  /** Both ends of the log, each read with one index lookup. */
  bounds(): Promise<LogBounds>;
  latestCursor(): Promise<number>;
  oldestCursor(): Promise<number | null>;
  /** Deletes entries past retention, always keeping the newest; returns how many went. */
  prune(): Promise<number>;
  /**
   * With `listen`: starts the listener (once; `subscribe` and `onReset`
   * start it too) and resolves when `LISTEN` is active, so a server awaits
   * it (after migrating) before it accepts subscriptions. Rejects if this
   * connection attempt fails (the log keeps retrying; call again to wait for
   * the next attempt) or after `close()`. Without `listen`: resolves at once.
   */
  ready(): Promise<void>;
  /**
   * Ends the listener connection and its timers and waits for a read in
   * progress; call it before closing the database. No-op without `listen`.
   */
  close(): Promise<void>;
  /**
   * With `listen`: where the cross-server tail stands (a metrics scrape);
   * one bounded count query only while it is behind. Null without `listen`.
   */
  feedStatus(): Promise<FeedStatus | null>;
}

/** Default retention: a week. */
export const DEFAULT_MAX_AGE_MS = 7 * 24 * 60 * 60 * 1000;
/** Default retention: a million entries. */
export const DEFAULT_MAX_ENTRIES = 1_000_000;
// Rows per INSERT statement: 6 parameters each stays far under both
// dialects' limits on bound parameters.
const CHUNK = 500;

// Batches up to this many rows reuse their INSERT's compiled text.
const CACHED_INSERT_ROWS = 16;

type ChangeRow = Omit<ChangesTable, "seq">;

/** The columns `record` writes, in the order of the objects it builds (and of the INSERT kysely compiles from them). */
const CHANGE_COLUMNS = [
  "entity",
  "op",
  "row_id",
  "row",
  "previous",
  "created_at",
] as const satisfies readonly (keyof ChangeRow)[];
type StoredChange = Omit<ChangesTable, "seq"> & { seq: number | string };

/** What the cross-server tail reads: log entries, and floor markers left by pruning. */
type FeedEntry =
  | LogEntry
  | { readonly cursor: number; readonly op: "floor"; readonly createdAt: number };

function reportListenerError(error: unknown): void {
  console.error("[@svc/sync] a change log subscriber threw", error);
}

function reportFeedError(error: unknown): void {
  console.error("[@svc/sync] the change log's listener failed", error);
}

function parseRow(text: string | null): Row | null {
  return text === null ? null : (JSON.parse(text) as Row);
}

function toFeedEntry(row: StoredChange): FeedEntry {
  // On Postgres the position is the cursor (see pg-positions.ts).
  const cursor = Number(row.pos ?? row.seq);
  const createdAt = Number(row.created_at);
  if (row.op === "reset" || row.op === "floor") return { cursor, op: row.op, createdAt };
  return {
    cursor,
    entity: row.entity,
    op: row.op,
    id: row.row_id,
    row: parseRow(row.row),
    previous: parseRow(row.previous),
    createdAt,
  };
}

function toEntry(row: StoredChange): LogEntry {
  return toFeedEntry(row) as LogEntry;
}

/** A log entry as subscribers get it (without `createdAt`, like `publish` hands them). */
function toLoggedChange(entry: LogEntry): LoggedChange {
  const { createdAt: _createdAt, ...change } = entry as LoggedChange & { createdAt: number };
  return change;
}

/**
 * Creates the durable change log; pass it to `createStore({ changeBus })` and
 * migrate `syncMigrations()` with the store.
 *
 * - `record` inserts one entry per changed row inside the write's
 *   transaction (multi-row INSERTs), so an acknowledged write is always in
 *   the log and a rolled-back one never is.
 * - Order without a lock: on Postgres, sequence values are taken at insert
 *   time but transactions commit in another order, so a reader that saw
 *   entry 8 could miss an entry 7 that commits later. The cursor there is a
 *   position made from the writing transaction's id, and readers read only
 *   below the visibility horizon (the oldest transaction still running):
 *   every reader sees one order, with no gap and no duplicate, and writers
 *   never wait for each other (see pg-positions.ts). A transaction still
 *   running anywhere in the database holds delivery back until it ends.
 *   SQLite has one writer at a time and keeps its sequence numbers.
 * - `publish` (after commit) hands subscribers the events with their cursors.
 * - With `listen` (Postgres), subscribers get every server's commits: after
 *   a commit, `publish` wakes this process's tail and sends one
 *   notification from the listener's own connection (coalesced while one is
 *   in flight, never inside the write's transaction), and one ordered tail
 *   per log reads `read(delivered, 500)` whenever a notification arrives or
 *   this process commits,
 *   so each entry reaches subscribers once, in cursor order. A reset marker
 *   calls the `onReset` listeners; so does finding entries after
 *   `delivered` pruned away (subscribers must resync). A lost listener
 *   reconnects with capped, jittered exponential backoff and catches up
 *   from `delivered`: no gap, no duplicate. Await `ready()` before serving
 *   subscriptions and `close()` before closing the database.
 *
 * @example
 * const log = createChangeLog({ db, dialect, retention: { maxAgeMs: 86_400_000 } });
 * const store = createStore({ db, dialect, manifest, changeBus: log });
 * await store.migrate({ packages: [syncMigrations()] });
 * log.subscribe((changes) => console.log(changes.map((change) => change.cursor)));
 *
 * // Several servers on one Postgres database:
 * const shared = createChangeLog({ db, dialect, listen: { connectionString: url } }); // on Postgres
 * // ... after migrating:
 * await shared.ready();
 * // ... at shutdown, before closing the database:
 * await shared.close();
 */
export function createChangeLog(options: ChangeLogOptions): ChangeLog {
  const db = options.db as unknown as Kysely<SyncTables>;
  const dialect = dialectFor(options.dialect);
  const now = options.now ?? Date.now;
  const maxAgeMs = options.retention?.maxAgeMs ?? DEFAULT_MAX_AGE_MS;
  const maxEntries = options.retention?.maxEntries ?? DEFAULT_MAX_ENTRIES;
  const onListenerError = options.onListenerError ?? reportListenerError;
  const observer = options.observer;
  const listeners = new Set<ChangeListener<LoggedChange>>();
  const resetListeners = new Set<() => void>();
  const followingListeners = new Set<(following: boolean) => void>();
  // The cursors `record` got, for `publish` to attach (keyed by the batch).
  const cursorsOf = new WeakMap<readonly ChangeEvent[], readonly number[]>();
  if (options.listen !== undefined && !dialect.notifies) {
    throw new ChangeFeedError("LISTEN_REQUIRES_POSTGRES");
  }

  // Concurrent writers commit out of the order their sequence numbers were
  // taken in: entries are positioned by transaction id instead.
  const positioned = dialect.concurrentWriters;
  const settleWaitMs = options.settleWaitMs ?? SETTLE_WAIT_MS;
  // The last reset marker recorded here, for `publishReset` to announce.
  let resetCursor: number | undefined;

  // The INSERT's text for small batches by row count, built by kysely once:
  // such a write then only binds its values (CHANGE_COLUMNS order, row
  // after row). Larger batches are rare and build theirs each time.
  const insertSQL = new Map<number, string>();
  const insertChunk = async (
    trx: Kysely<SyncTables>,
    rows: readonly ChangeRow[],
  ): Promise<{ seq: number | string }[]> => {
    const builder = () => trx.insertInto(CHANGES_TABLE).values(rows).returning("seq");
    if (rows.length > CACHED_INSERT_ROWS) return builder().execute();
    let text = insertSQL.get(rows.length);
    if (text === undefined) {
      text = builder().compile().sql;
      insertSQL.set(rows.length, text);
    }
    const parameters: unknown[] = [];
    for (const row of rows) for (const column of CHANGE_COLUMNS) parameters.push(row[column]);
    const result = await trx.executeQuery<{ seq: number | string }>(
      CompiledQuery.raw(text, parameters),
    );
    return result.rows;
  };

  const insert = async (
    trx: Kysely<SyncTables>,
    options: RecordOptions,
    rows: readonly ChangeRow[],
  ): Promise<number[]> => {
    if (positioned) return insertPositioned(trx, rows, CHUNK, options);
    const cursors: number[] = [];
    for (let start = 0; start < rows.length; start += CHUNK) {
      const inserted = await insertChunk(trx, rows.slice(start, start + CHUNK));
      // Sequence numbers are taken in VALUES order; RETURNING's order is not promised.
      cursors.push(...inserted.map((row) => Number(row.seq)).sort((a, b) => a - b));
    }
    return cursors;
  };

  const bounds = async (): Promise<LogBounds> => {
    if (positioned) {
      // `latest` covers every commit made before this call (as `read` does).
      await settleHorizon();
      return positionBounds(db);
    }
    // Two scalar subqueries: each is one index lookup on both dialects
    // (SQLite optimises min/max only when alone in their query).
    const result = await sql<{ oldest: number | string | null; latest: number | string | null }>`
      select (select min(seq) from ${sql.table(CHANGES_TABLE)}) as oldest,
             (select max(seq) from ${sql.table(CHANGES_TABLE)}) as latest`.execute(db);
    const row = result.rows[0];
    return {
      oldest: row?.oldest === null || row?.oldest === undefined ? null : Number(row.oldest),
      latest: row?.latest === null || row?.latest === undefined ? 0 : Number(row.latest),
    };
  };

  // A metrics hook must not fail a write, a read or the tail.
  const reportObserverError = (error: unknown): void => {
    try {
      onListenerError(error);
    } catch {
      // Nothing left to tell.
    }
  };
  const observeDelivery = (entries: number, lagMs: number): void => {
    if (observer?.onDelivery === undefined) return;
    try {
      observer.onDelivery({ entries, lagMs });
    } catch (error) {
      reportObserverError(error);
    }
  };
  // How long ago the oldest entry of a run was logged (by its writer's clock).
  const lagOf = (entries: readonly FeedEntry[]): number => {
    let oldest = Number.POSITIVE_INFINITY;
    for (const entry of entries) if (entry.createdAt < oldest) oldest = entry.createdAt;
    return oldest === Number.POSITIVE_INFINITY ? 0 : Math.max(0, now() - oldest);
  };
  // Public reads wait for older transactions; how long is a metric.
  const settleHorizon = async (): Promise<void> => {
    const waited = await awaitHorizon(db, settleWaitMs);
    if (observer?.onHorizonWait === undefined) return;
    try {
      observer.onHorizonWait(waited);
    } catch (error) {
      reportObserverError(error);
    }
  };

  const readFeed = async (since: number, limit: number): Promise<FeedEntry[]> =>
    (await readPositioned(db, since, limit)).map(toFeedEntry);

  const read = async (since: number, limit: number): Promise<LogEntry[]> => {
    if (positioned) {
      // Every commit made before this read is in it (pulls read their writes).
      await settleHorizon();
      // A floor marker is pruning's bookkeeping, not a change (see `bounds`).
      const entries = await readFeed(since, limit);
      return entries.filter((entry): entry is LogEntry => entry.op !== "floor");
    }
    const rows = await db
      .selectFrom(CHANGES_TABLE)
      .selectAll()
      .where("seq", ">", since)
      .orderBy("seq")
      .limit(limit)
      .execute();
    return rows.map(toEntry);
  };

  const notifyReset = (): void => {
    for (const listener of [...resetListeners]) {
      try {
        listener();
      } catch (error) {
        try {
          onListenerError(error);
        } catch {
          // A failing error reporter must not fail the committed reset.
        }
      }
    }
  };

  const feed: PgFeed | undefined =
    options.listen === undefined
      ? undefined
      : createPgFeed<FeedEntry>({
          db,
          listen: options.listen,
          read: readFeed,
          // The tail reads below the horizon and looks again for what it
          // holds back: it never waits for the horizon itself.
          bounds: () => (positioned ? positionBounds(db) : bounds()),
          top: () => committedTop(db),
          deliver: (entries) => {
            if (observer?.onDelivery !== undefined) observeDelivery(entries.length, lagOf(entries));
            notifyListeners(
              listeners,
              entries.map((entry) => toLoggedChange(entry as LogEntry)),
              onListenerError,
            );
          },
          reset: notifyReset,
          onError: options.onError ?? reportFeedError,
          now,
          following: (following) => {
            for (const listener of [...followingListeners]) {
              try {
                listener(following);
              } catch (error) {
                reportObserverError(error);
              }
            }
          },
        });

  // With a feed, a subscriber that reads `latestCursor()` (a snapshot's
  // cursor) must not read one older than where the tail starts, or the
  // changes in between would reach it from neither side.
  const settledBounds = async (): Promise<LogBounds> => {
    await feed?.settled();
    return bounds();
  };

  return {
    async record(trx, events, options) {
      if (events.length === 0) return;
      const createdAt = now();
      const log = trx as unknown as Kysely<SyncTables>;
      const cursors = await insert(
        log,
        options ?? {},
        events.map((event) => ({
          entity: event.entity,
          op: event.op,
          row_id: event.id,
          row: event.row === null ? null : JSON.stringify(event.row),
          previous: event.previous === null ? null : JSON.stringify(event.previous),
          created_at: createdAt,
        })),
      );
      cursorsOf.set(events, cursors);
    },
    publish(events) {
      const cursors = cursorsOf.get(events);
      if (cursors !== undefined && observer?.onPublish !== undefined) {
        try {
          observer.onPublish(events.length);
        } catch (error) {
          reportObserverError(error);
        }
      }
      if (feed !== undefined) {
        // The tail delivers it (with every other server's commits, in
        // order); the other servers hear of it from one notification.
        feed.committed(cursors === undefined ? undefined : Math.max(...cursors));
        return;
      }
      // A batch that was not recorded here (another store) has no place in the log.
      if (cursors === undefined) return;
      observeDelivery(events.length, 0);
      if (listeners.size === 0) return;
      notifyListeners(
        listeners,
        events.map((event, index) => ({ ...event, cursor: cursors[index] ?? 0 })),
        onListenerError,
      );
    },
    subscribe(listener) {
      listeners.add(listener);
      feed?.start();
      return () => {
        listeners.delete(listener);
      };
    },
    async recordReset(trx) {
      const log = trx as unknown as Kysely<SyncTables>;
      const top = await log
        .selectFrom(CHANGES_TABLE)
        .select((eb) => eb.fn.max("seq").as("max"))
        .executeTakeFirst();
      await log.deleteFrom(CHANGES_TABLE).execute();
      const marker: ChangeRow = {
        entity: "",
        op: "reset",
        row_id: "",
        row: null,
        previous: null,
        created_at: now(),
      };
      if (dialect.serialKeyRestarts) {
        // SQLite's rowid would restart at 1 in the emptied table: the marker
        // takes the next number explicitly, so no cursor is handed out twice.
        // (A Postgres sequence never goes back.)
        const seq = Number(top?.max ?? 0) + 1;
        await log
          .insertInto(CHANGES_TABLE)
          .values({ ...marker, seq } as ChangeRow)
          .execute();
      } else {
        [resetCursor] = await insert(log, {}, [marker]);
      }
    },
    publishReset() {
      // With a feed, the tail reaches the marker and tells the listeners.
      if (feed !== undefined) feed.committed(resetCursor);
      else notifyReset();
    },
    onReset(listener) {
      resetListeners.add(listener);
      feed?.start();
      return () => {
        resetListeners.delete(listener);
      };
    },
    follow: () => feed?.follow() ?? (() => undefined),
    following: () => feed?.following() ?? true,
    onFollowing(listener) {
      followingListeners.add(listener);
      return () => {
        followingListeners.delete(listener);
      };
    },
    read,
    bounds: settledBounds,
    latestCursor: async () => (await settledBounds()).latest,
    oldestCursor: async () => (await settledBounds()).oldest,
    async prune() {
      if (positioned) {
        // Retention applies to every entry committed before the call.
        await awaitHorizon(db, settleWaitMs);
        return prunePositioned(db, { maxEntries, youngerThan: now() - maxAgeMs });
      }
      const { latest } = await bounds();
      if (latest === 0) return 0;
      // Two range deletes on the primary key; the newest entry
      // always stays, so `latest` survives any retention.
      const byCount = await db
        .deleteFrom(CHANGES_TABLE)
        .where("seq", "<=", latest - maxEntries)
        .where("seq", "<", latest)
        .executeTakeFirst();
      // Entries are written in time order, so the first one still young
      // enough bounds the old ones: found by walking the key from the oldest
      // end, which reads no more entries than are about to go.
      const young = await db
        .selectFrom(CHANGES_TABLE)
        .select("seq")
        .where("created_at", ">=", now() - maxAgeMs)
        .orderBy("seq")
        .limit(1)
        .executeTakeFirst();
      const byAge = await db
        .deleteFrom(CHANGES_TABLE)
        .where("seq", "<", young === undefined ? latest : Number(young.seq))
        .executeTakeFirst();
      return Number(byCount.numDeletedRows) + Number(byAge.numDeletedRows);
    },
    ready: () => feed?.ready() ?? Promise.resolve(),
    close: async () => {
      await feed?.close();
    },
    async feedStatus() {
      if (feed === undefined) return null;
      const { listening, behindSince, delivered, target, paused, resumes } = feed.status();
      const heldMs = behindSince === undefined ? 0 : Math.max(0, now() - behindSince);
      const pendingEntries =
        delivered === undefined || delivered >= target
          ? 0
          : await countPositioned(db, { after: delivered, upTo: target, cap: PENDING_COUNT_CAP });
      return { listening, heldMs, pendingEntries, paused, resumes };
    },
  };
}
