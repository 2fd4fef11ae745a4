import type { CacheStats } from "./cache-stats.js";
import type { SessionRecord } from "./session-store.js";

/** How many resolved sessions the cache keeps; the least recently used go first. */
const CAPACITY = 10_000;

/**
 * How long an entry is trusted. Revocations through this process drop
 * their entries at once, other processes' when the revocation journal is
 * read (every 50 ms on Postgres); the bound caches the rest.
 */
export const SESSION_CACHE_TTL_MS = 1000;

/**
 * Resolved sessions by token: every revocation through this process's
 * `Auth` calls `forget` / `forgetUser`, and another server's reaches it
 * through the revocation journal (see `createAuth`), so a revoked session
 * is refused at once here and within one journal poll elsewhere, while a
 * live one costs a map lookup instead of a query. Entries also expire after
 * `SESSION_CACHE_TTL_MS`.
 */
export class SessionCache {
  readonly #entries = new Map<string, { record: SessionRecord; cachedAt: number }>();
  // What `stats()` reports, beside the size.
  readonly #counts = { hits: 0, misses: 0, invalidations: 0, evictions: 0 };

  /** The cached session for `token`, unless older than `SESSION_CACHE_TTL_MS` at `now`. */
  get(token: string, now: number): SessionRecord | undefined {
    const entry = this.#entries.get(token);
    if (entry === undefined) {
      this.#counts.misses++;
      return undefined;
    }
    this.#entries.delete(token);
    if (now - entry.cachedAt >= SESSION_CACHE_TTL_MS || now < entry.cachedAt) {
      this.#counts.misses++;
      return undefined;
    }
    // Re-insert: Map iteration order is insertion order, so the oldest key is the LRU one.
    this.#entries.set(token, entry);
    this.#counts.hits++;
    return entry.record;
  }

  set(token: string, record: SessionRecord, now: number): void {
    if (this.#entries.size >= CAPACITY && !this.#entries.has(token)) {
      const oldest = this.#entries.keys().next();
      if (oldest.done !== true) {
        this.#entries.delete(oldest.value);
        this.#counts.evictions++;
      }
    }
    this.#entries.set(token, { record, cachedAt: now });
  }

  /** Drops the session with this id (its token is not known here). */
  forget(sessionId: string): void {
    this.#counts.invalidations++;
    for (const [token, entry] of this.#entries) {
      if (entry.record.id === sessionId) this.#entries.delete(token);
    }
  }

  forgetUser(userId: string): void {
    this.#counts.invalidations++;
    for (const [token, entry] of this.#entries) {
      if (entry.record.userId === userId) this.#entries.delete(token);
    }
  }

  clear(): void {
    this.#counts.invalidations++;
    this.#entries.clear();
  }

  /** Hits, misses (absent or too old), invalidations (`forget*`, `clear`), evictions and size. */
  stats(): CacheStats {
    return { ...this.#counts, size: this.#entries.size };
  }
}
