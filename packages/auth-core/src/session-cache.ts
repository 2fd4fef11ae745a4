import type { SessionRecord } from "./session-store.js";

/** How many resolved sessions the cache keeps; the least recently used go first. */
const CAPACITY = 10_000;

/**
 * Resolved sessions by token, for the embedded SQLite deployment, where this
 * process is the only writer of the sessions table: every revocation goes
 * through `forget` / `forgetUser` here, so a revoked session is refused at
 * once while a live one costs a map lookup instead of a query. On Postgres,
 * where another server may revoke, there is no cache (see `createAuth`).
 */
export class SessionCache {
  readonly #entries = new Map<string, SessionRecord>();

  get(token: string): SessionRecord | undefined {
    const record = this.#entries.get(token);
    if (record !== undefined) {
      // Re-insert: Map iteration order is insertion order, so the oldest key is the LRU one.
      this.#entries.delete(token);
      this.#entries.set(token, record);
    }
    return record;
  }

  set(token: string, record: SessionRecord): void {
    if (this.#entries.size >= CAPACITY) {
      const oldest = this.#entries.keys().next();
      if (oldest.done !== true) this.#entries.delete(oldest.value);
    }
    this.#entries.set(token, record);
  }

  /** Drops the session with this id (its token is not known here). */
  forget(sessionId: string): void {
    for (const [token, record] of this.#entries) {
      if (record.id === sessionId) this.#entries.delete(token);
    }
  }

  forgetUser(userId: string): void {
    for (const [token, record] of this.#entries) {
      if (record.userId === userId) this.#entries.delete(token);
    }
  }

  clear(): void {
    this.#entries.clear();
  }
}
