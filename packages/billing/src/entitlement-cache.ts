import type { CacheStats } from "@svc/auth-core";

/**
 * A short-lived memo of each user's entitlement ids, so attaching them to
 * every request's caller costs a map lookup, not two queries. This
 * process's webhook empties it at once; other servers sharing the database
 * drop a user's entry when told (`forget`, through the server's change
 * journal), and see a change within `ttlMs` at the latest.
 */
export class EntitlementCache {
  readonly #entries = new Map<string, { ids: readonly string[]; expiresAt: number }>();
  readonly #ttlMs: number;
  readonly #maxEntries: number;
  readonly #now: () => number;
  // What `stats()` reports, beside the size.
  readonly #counts = { hits: 0, misses: 0, invalidations: 0, evictions: 0 };

  constructor(options: { ttlMs: number; maxEntries?: number; now: () => number }) {
    this.#ttlMs = options.ttlMs;
    this.#maxEntries = options.maxEntries ?? 10_000;
    this.#now = options.now;
  }

  /** The cached ids of `userId`, or what `load` reads (then kept for `ttlMs`). */
  async get(userId: string, load: () => Promise<readonly string[]>): Promise<readonly string[]> {
    const now = this.#now();
    const hit = this.#entries.get(userId);
    if (hit !== undefined && hit.expiresAt > now) {
      this.#counts.hits++;
      return hit.ids;
    }
    this.#counts.misses++;
    const ids = Object.freeze([...(await load())]);
    if (this.#ttlMs > 0) {
      // Oldest first in a Map: drop it when full.
      if (this.#entries.size >= this.#maxEntries && !this.#entries.has(userId)) {
        const oldest = this.#entries.keys().next();
        if (oldest.done !== true) {
          this.#entries.delete(oldest.value);
          this.#counts.evictions++;
        }
      }
      this.#entries.delete(userId);
      this.#entries.set(userId, { ids, expiresAt: now + this.#ttlMs });
    }
    return ids;
  }

  /** Forgets one user's ids (another server recorded a change of theirs). */
  forget(userId: string): void {
    this.#counts.invalidations++;
    this.#entries.delete(userId);
  }

  /** Forgets everything (a subscription changed). */
  clear(): void {
    this.#counts.invalidations++;
    this.#entries.clear();
  }

  /** Hits, misses (absent or expired; every lookup with a TTL of 0), invalidations (`forget`, `clear`), evictions, size. */
  stats(): CacheStats {
    return { ...this.#counts, size: this.#entries.size };
  }
}
