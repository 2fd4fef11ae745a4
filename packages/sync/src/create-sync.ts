import { compilePolicies, type ExistsResolver } from "@svc/policy-engine";
import { type AuthContext, ConfigError } from "@svc/schema";
import type { Store } from "@svc/store";
import type { ChangeLog, LoggedChange } from "./change-log.js";
import { formatCursor, type PullQuery, parsePullQuery } from "./cursor.js";
import { SyncError } from "./errors.js";
import { createExistsCache } from "./exists-cache.js";
import { createLoadScheduler, type LoadScheduler } from "./load-scheduler.js";
import { type LiveQueryRunner, readDependencies } from "./read-tracking.js";
import {
  cachedExistsResolver,
  type PulledChange,
  type ReadPolicies,
  visibleChange,
} from "./visibility.js";

/** The answer of a pull. */
export interface PullResult {
  /** The changes the caller may see, oldest first. */
  readonly changes: PulledChange[];
  /** Pass as `since` to the next pull. */
  readonly cursor: string;
  /** True when more entries follow: pull again at once. */
  readonly has_more: boolean;
}

/** Options of `createSync`. */
export interface SyncOptions {
  /** The store whose `changeBus` is `log`; its manifest's read policies filter every pull. */
  readonly store: Store;
  readonly log: ChangeLog;
  /** Runs query functions for live queries (`subscribe {id, query, args}`); without it they are refused. */
  readonly queries?: LiveQueryRunner;
  /** Bound of the shared `exists(...)` answer cache. Default 10,000. */
  readonly existsCacheEntries?: number;
  /**
   * The largest `snapshot` frame, in bytes of its JSON: a subscription
   * whose snapshot is larger is refused with `SNAPSHOT_TOO_LARGE` (413) and
   * closed. Default 1 MiB.
   */
  readonly maxSnapshotBytes?: number;
  /**
   * The largest `result` frame of a live query, in bytes of its JSON: a
   * live query whose value is larger gets `RESULT_TOO_LARGE` (413) and is
   * closed. Default 1 MiB.
   */
  readonly maxResultBytes?: number;
  /**
   * Snapshots and live query runs in progress at once, over every
   * connection; the others wait their turn, connections taking turns.
   * With the frame bounds this caps the bytes in flight (8 × 1 MiB by
   * default). Default 8.
   */
  readonly maxConcurrentLoads?: number;
  /**
   * Snapshots and live query runs one connection has in progress at once
   * (4 × 1 MiB in flight by default). Default 4.
   */
  readonly maxConnectionLoads?: number;
}

/** Default of `maxSnapshotBytes`: 1 MiB. */
export const DEFAULT_MAX_SNAPSHOT_BYTES = 1024 * 1024;
/** Default of `maxResultBytes`: 1 MiB. */
export const DEFAULT_MAX_RESULT_BYTES = 1024 * 1024;
/** Default of `maxConcurrentLoads`. */
export const DEFAULT_MAX_CONCURRENT_LOADS = 8;
/** Default of `maxConnectionLoads`. */
export const DEFAULT_MAX_CONNECTION_LOADS = 4;

/** The bounds every session of a sync applies (see `SyncOptions`). */
export interface SyncLimits {
  readonly maxSnapshotBytes: number;
  readonly maxResultBytes: number;
  readonly maxConcurrentLoads: number;
  readonly maxConnectionLoads: number;
}

function positiveInteger(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value < 1) {
    throw new ConfigError(`createSync({ ${name} })`, "must be a positive integer");
  }
  return value;
}

/** Receives each published batch with the resolver its checks should use. */
export type SyncListener = (
  changes: readonly LoggedChange[],
  resolveExists: ExistsResolver,
) => void;

/** The framework-free sync core. */
export interface Sync {
  readonly log: ChangeLog;
  /** The store snapshots are read from (as the caller). */
  readonly store: Store;
  /** The manifest's read policies, compiled once: what every transport filters changes with. */
  readonly policies: ReadPolicies;
  /**
   * Subscribes to published batches, in log order. `exists(...)` answers
   * that read a changed entity are dropped before listeners run, and the
   * resolver they get shares answers across subscribers and batches.
   */
  subscribe(listener: SyncListener): () => void;
  /** Runs live queries; undefined when none were configured. */
  readonly queries: LiveQueryRunner | undefined;
  /** Per entity, the entities its read rules look up (transitively). */
  readonly readDependencies: ReadonlyMap<string, ReadonlySet<string>>;
  /**
   * The shared, cached `exists(...)` resolver (see `subscribe`); one
   * caching for a single use while the log does not follow every commit
   * (`log.following()`).
   */
  existsResolver(): ExistsResolver;
  /** The frame and concurrency bounds of every session. */
  readonly limits: SyncLimits;
  /** Schedules the snapshots and live query runs of every session (see `createLoadScheduler`). */
  readonly loads: LoadScheduler;
  /**
   * The changes after `since` that `auth` may read, at most `limit`
   * entries examined (default 100, at most 1000). Entries the caller may
   * not see are skipped but still advance `cursor`, so a page may hold
   * fewer changes than `limit` (even none) while `has_more` is true.
   *
   * Without `since` it answers only the current cursor and no changes: a
   * client first loads a snapshot (the entity API), then pulls from the
   * cursor it got before loading. Throws `SyncError`: `INVALID_QUERY` for a
   * malformed `since` or `limit`; `RESYNC_REQUIRED` for a cursor newer than
   * the log, older than its retention, or from before a reset.
   */
  pull(auth: AuthContext, query?: PullQuery): Promise<PullResult>;
}

/**
 * Creates the sync core over a store and its change log.
 *
 * @example
 * const log = createChangeLog({ db, dialect });
 * const store = createStore({ db, dialect, manifest, changeBus: log });
 * const sync = createSync({ store, log });
 * const { cursor } = await sync.pull(auth);
 * const next = await sync.pull(auth, { since: cursor, limit: 100 });
 */
export function createSync(options: SyncOptions): Sync {
  const { store, log } = options;
  const limits: SyncLimits = {
    maxSnapshotBytes: positiveInteger(
      "maxSnapshotBytes",
      options.maxSnapshotBytes,
      DEFAULT_MAX_SNAPSHOT_BYTES,
    ),
    maxResultBytes: positiveInteger(
      "maxResultBytes",
      options.maxResultBytes,
      DEFAULT_MAX_RESULT_BYTES,
    ),
    maxConcurrentLoads: positiveInteger(
      "maxConcurrentLoads",
      options.maxConcurrentLoads,
      DEFAULT_MAX_CONCURRENT_LOADS,
    ),
    maxConnectionLoads: positiveInteger(
      "maxConnectionLoads",
      options.maxConnectionLoads,
      DEFAULT_MAX_CONNECTION_LOADS,
    ),
  };
  const loads = createLoadScheduler({
    maxConcurrent: limits.maxConcurrentLoads,
    perLane: limits.maxConnectionLoads,
  });
  const dependencies = readDependencies(store.manifest);
  const entities = store.manifest.entities.map((entity) => entity.name);
  const policies: ReadPolicies = {
    compiled: compilePolicies(store.manifest),
    entities: new Set(entities),
    lookupFree: new Set(entities.filter((entity) => (dependencies.get(entity)?.size ?? 0) === 0)),
  };
  const exists = createExistsCache(store.systemReader(), options.existsCacheEntries);
  const listeners = new Set<SyncListener>();
  // Subscribed for the sync's lifetime, so no change ever goes by the cache unseen.
  log.subscribe((changes: readonly LoggedChange[]): void => {
    exists.invalidate(new Set(changes.map((change) => change.entity)));
    for (const listener of [...listeners]) listener(changes, exists.resolve);
  });
  log.onReset(() => exists.clear());
  // A paused tail (Postgres, no live client) delivers nothing: answers
  // cached before or during the pause may be stale, and none is kept until
  // it follows again.
  log.onFollowing(() => exists.clear());
  return {
    log,
    store,
    policies,
    queries: options.queries,
    readDependencies: dependencies,
    limits,
    loads,
    subscribe(listener) {
      listeners.add(listener);
      return () => {
        listeners.delete(listener);
      };
    },
    existsResolver: () =>
      log.following() ? exists.resolve : cachedExistsResolver(store.systemReader()),
    async pull(auth, query = {}) {
      const { since, limit } = parsePullQuery(query);
      if (since === undefined) {
        return { changes: [], cursor: formatCursor(await log.latestCursor()), has_more: false };
      }
      // Read first, then check the ends: an entry pruned or reset away
      // before the read shows as a raised `oldest` after it.
      const entries = await log.read(since, limit + 1);
      const { oldest, latest } = await log.bounds();
      if (since > latest || (oldest !== null && since < oldest - 1)) {
        throw new SyncError("RESYNC_REQUIRED");
      }
      const page = entries.slice(0, limit);
      const resolveExists = cachedExistsResolver(store.systemReader());
      const changes: PulledChange[] = [];
      for (const entry of page) {
        if (entry.op === "reset") throw new SyncError("RESYNC_REQUIRED");
        const visible = await visibleChange(policies, auth, entry, resolveExists);
        if (visible !== null) changes.push(visible);
      }
      const last = page[page.length - 1];
      return {
        changes,
        cursor: formatCursor(last === undefined ? since : last.cursor),
        has_more: entries.length > limit,
      };
    },
  };
}
