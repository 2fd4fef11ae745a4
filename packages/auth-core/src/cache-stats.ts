/**
 * Counters of one in-process cache, for metrics. Every field but `size`
 * only grows while the process runs (map them to Prometheus counters).
 *
 * @example
 * const { session } = auth.cacheStats();
 * const hitRatio = session.hits / Math.max(1, session.hits + session.misses);
 */
export interface CacheStats {
  /** Lookups answered from memory. */
  readonly hits: number;
  /** Lookups that went to the database: nothing cached, or the entry was too old. */
  readonly misses: number;
  /**
   * Times the cache was told something changed and dropped what it held of
   * it (a revocation here or, through the journal, on another server; a
   * sign-out, a deletion, a full clear), whether or not an entry was held.
   */
  readonly invalidations: number;
  /** Entries dropped to make room (the cache was full). */
  readonly evictions: number;
  /** Entries held now. */
  readonly size: number;
}

/** The caches of `createAuth`, by name (`auth.cacheStats()`). */
export interface AuthCacheStats {
  /** Resolved sessions by token (a second at most). */
  readonly session: CacheStats;
  /** Verified API keys by key (a second at most). */
  readonly apiKey: CacheStats;
}
