import { createHash, randomBytes, timingSafeEqual } from "node:crypto";

/** A signed-in studio browser: its CSRF token and when it must sign in again. */
export interface StudioSession {
  /** Sent back in every form (`_csrf`); compared in constant time. */
  readonly csrfToken: string;
  readonly expiresAt: number;
}

/** The studio's sign-ins, kept in this process's memory. */
export interface StudioSessions {
  /** Starts a session; resolves with the random id the cookie carries (never the admin token). */
  create(): { id: string; session: StudioSession };
  /** The live session a cookie value names, or null (unknown, signed out or expired). */
  resolve(id: string | undefined): StudioSession | null;
  /** Ends the session a cookie value names. */
  revoke(id: string | undefined): void;
}

/** Options of `createStudioSessions`. */
export interface StudioSessionsOptions {
  /** Unix ms. Default `Date.now`. */
  readonly now?: () => number;
  /** How long a sign-in lasts, in ms. Default 8 hours. */
  readonly lifetimeMs?: number;
  /** Sessions kept at most; the oldest goes first. Default 1000. */
  readonly capacity?: number;
}

const ID_SHAPE = /^[0-9a-f]{64}$/;

/** Map keys are digests of the ids, so a lookup never compares a secret byte by byte. */
function keyOf(id: string): string {
  return createHash("sha256").update(id).digest("hex");
}

/**
 * In-memory studio sessions. A restart signs everyone out, which suits an
 * admin tool; several servers behind one address each keep their own (a
 * studio user sticks to one, or signs in again).
 */
export function createStudioSessions(options: StudioSessionsOptions = {}): StudioSessions {
  const now = options.now ?? Date.now;
  const lifetimeMs = options.lifetimeMs ?? 8 * 60 * 60 * 1000;
  const capacity = options.capacity ?? 1000;
  // Insertion order is creation order: the first key is the oldest session.
  const sessions = new Map<string, StudioSession>();

  function prune(): void {
    const current = now();
    for (const [key, session] of sessions) {
      if (session.expiresAt <= current) sessions.delete(key);
    }
    while (sessions.size >= capacity) {
      const oldest = sessions.keys().next();
      if (oldest.done === true) break;
      sessions.delete(oldest.value);
    }
  }

  return {
    create() {
      prune();
      const id = randomBytes(32).toString("hex");
      const session: StudioSession = {
        csrfToken: randomBytes(32).toString("hex"),
        expiresAt: now() + lifetimeMs,
      };
      sessions.set(keyOf(id), session);
      return { id, session };
    },
    resolve(id) {
      if (id === undefined || !ID_SHAPE.test(id)) return null;
      const key = keyOf(id);
      const session = sessions.get(key);
      if (session === undefined) return null;
      if (session.expiresAt <= now()) {
        sessions.delete(key);
        return null;
      }
      return session;
    },
    revoke(id) {
      if (id !== undefined && ID_SHAPE.test(id)) sessions.delete(keyOf(id));
    },
  };
}

/**
 * Constant-time equality of two secrets: both are hashed first, so neither
 * their contents nor their lengths show in the time taken.
 */
export function secretsEqual(given: string, expected: string): boolean {
  return timingSafeEqual(
    createHash("sha256").update(given).digest(),
    createHash("sha256").update(expected).digest(),
  );
}
