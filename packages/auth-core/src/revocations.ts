import { generateId } from "@svc/schema";
import type { Kysely } from "kysely";
import type { AuthTables } from "./tables.js";

/**
 * How far back each poll of the journal looks. An entry is found by every
 * server whose clock is within this of the writer's and whose poll runs
 * within it of the commit; entries seen before are skipped by id.
 */
export const REVOCATION_LOOKBACK_MS = 30_000;

/** How long journal entries are kept before a poll prunes them. */
const RETENTION_MS = 60 * 60 * 1000;

/** Entries read per poll at most; a larger burst is read over the next polls. */
const POLL_LIMIT = 1000;

/** Default interval between polls of the journal on SQLite (processes sharing a file): 250 ms. */
export const DEFAULT_REVOCATION_POLL_MS = 250;

/**
 * Default interval on Postgres, where several servers cache sessions and
 * keys: 50 ms, so a revocation reaches every server within 100 ms.
 */
export const DEFAULT_SHARED_REVOCATION_POLL_MS = 50;

/**
 * Default interval when a `RevocationSignal` wakes the journal: 1 s. The
 * poll then only covers what a lost signal connection missed; revocations
 * travel by the signal.
 */
export const DEFAULT_SIGNALLED_REVOCATION_POLL_MS = 1_000;

/**
 * A doorbell shared by the servers on one database (`createPgSignal` of
 * `@svc/store/pg` is one): the journal rings it after writing an entry,
 * and reads the journal when another server rings, so a revocation reaches
 * every server in about one round trip instead of one poll interval.
 */
export interface RevocationSignal {
  /** Tells the other servers; a failure only means they learn it at their next poll. */
  ring(): Promise<void>;
  /** Calls `listener` on another server's ring. Returns the remover. */
  onRing(listener: () => void): () => void;
}

/** Why a user's credentials changed; carried to listeners, never to clients. */
export type RevocationReason =
  | "sign-out"
  | "sessions-revoked"
  | "api-key-revoked"
  | "org-selected"
  | "account-deleted"
  | "account-claimed"
  | "password-changed"
  | "password-reset"
  | "second-factor-reset"
  /**
   * Not a credential change: what a caller resolves to changed elsewhere
   * (billing's entitlements). Announced through `Auth.announceCallerChange`.
   */
  | "entitlements-changed";

/** The reasons other packages may announce through `Auth.announceCallerChange`. */
export type CallerChangeReason = Extract<RevocationReason, "entitlements-changed">;

/** One change to a user's credentials, as listeners receive it. */
export interface Revocation {
  readonly userId: string;
  readonly reason: RevocationReason;
  /** True when this process made the change; false when another server's was read from the journal. */
  readonly local: boolean;
}

/**
 * The revocation journal: every change that may end or alter a user's
 * credentials (sign-out, revoked sessions or keys, account deletion or
 * claim, a password change or reset, an organization selection) writes a
 * row after its commit, and every server sharing the database polls the
 * rows (and, with a `RevocationSignal`, reads them as soon as another
 * server rings). Listeners learn of local changes at once and of other
 * servers' within one poll or one ring, so open live connections are re-checked everywhere
 * without a coordinator: the database is the only channel.
 */
export interface RevocationJournal {
  /** Records a committed change and tells local listeners at once. */
  announce(userId: string, reason: RevocationReason): Promise<void>;
  /** Adds a listener; polling runs while at least one is registered. Returns the remover. */
  onRevoked(listener: (revocation: Revocation) => void): () => void;
  /** Reads the journal once (the poller's step; tests call it to skip the wait). */
  poll(): Promise<void>;
  /** Stops polling. */
  close(): void;
}

/** Options of `createRevocationJournal`. */
export interface RevocationJournalOptions {
  /** The session-store tables (the journal lives beside `svc_sessions`). */
  readonly tables: () => Kysely<AuthTables>;
  readonly now: () => number;
  /** Interval between polls. Default `DEFAULT_REVOCATION_POLL_MS`. */
  readonly pollMs?: number;
  /** Wakes the journal on other servers' entries and is rung after this one's (see `RevocationSignal`). */
  readonly signal?: RevocationSignal;
  /** Receives a failed poll or write (the next poll retries). Default: `console.error`. */
  readonly onError?: (error: unknown) => void;
}

/** Builds the journal; see `RevocationJournal`. */
export function createRevocationJournal(options: RevocationJournalOptions): RevocationJournal {
  const listeners = new Set<(revocation: Revocation) => void>();
  // Ids already delivered (own and read), with their time, so a row read by
  // several overlapping polls is delivered once.
  const seen = new Map<string, number>();
  const onError =
    options.onError ?? ((error: unknown) => console.error("svc: auth: revocations:", error));
  const pollMs = options.pollMs ?? DEFAULT_REVOCATION_POLL_MS;
  let timer: NodeJS.Timeout | undefined;
  let polling: Promise<void> | undefined;
  let lastPrune = 0;

  const emit = (revocation: Revocation): void => {
    for (const listener of listeners) {
      try {
        listener(revocation);
      } catch (error) {
        onError(error);
      }
    }
  };

  const forgetOld = (now: number): void => {
    for (const [id, at] of seen) {
      if (at < now - 2 * REVOCATION_LOOKBACK_MS) seen.delete(id);
      else break; // insertion order is roughly time order
    }
  };

  const readOnce = async (): Promise<void> => {
    const now = options.now();
    const rows = await options
      .tables()
      .selectFrom("svc_auth_revocations")
      .select(["id", "user_id", "reason", "at"])
      .where("at", ">=", now - REVOCATION_LOOKBACK_MS)
      .orderBy("at")
      .limit(POLL_LIMIT)
      .execute();
    for (const row of rows) {
      if (seen.has(row.id)) continue;
      seen.set(row.id, Number(row.at));
      emit({ userId: row.user_id, reason: row.reason as RevocationReason, local: false });
    }
    forgetOld(now);
    if (now - lastPrune > 60_000) {
      lastPrune = now;
      await options
        .tables()
        .deleteFrom("svc_auth_revocations")
        .where("at", "<", now - RETENTION_MS)
        .execute();
    }
  };

  const poll = (): Promise<void> => {
    // One poll at a time: a slow database never stacks reads.
    polling ??= readOnce().finally(() => {
      polling = undefined;
    });
    return polling;
  };

  let stopRinging: (() => void) | undefined;
  const stop = (): void => {
    if (timer !== undefined) clearInterval(timer);
    timer = undefined;
    stopRinging?.();
    stopRinging = undefined;
  };

  const start = (): void => {
    if (timer !== undefined) return;
    timer = setInterval(() => {
      poll().catch((error: unknown) => {
        // The database was closed under a journal nobody closed: stop polling.
        if (error instanceof Error && /driver has already been destroyed/.test(error.message)) {
          stop();
          return;
        }
        onError(error);
      });
    }, pollMs);
    timer.unref();
    stopRinging = options.signal?.onRing(() => {
      poll().catch(onError);
    });
  };

  return {
    async announce(userId, reason) {
      const id = generateId();
      const at = options.now();
      seen.set(id, at);
      emit({ userId, reason, local: true });
      await options
        .tables()
        .insertInto("svc_auth_revocations")
        .values({ id, user_id: userId, reason, at })
        .execute();
      // Not awaited: the change is recorded; a ring that fails leaves the
      // other servers their next poll.
      options.signal?.ring().catch(onError);
    },
    onRevoked(listener) {
      listeners.add(listener);
      start();
      return () => {
        listeners.delete(listener);
        if (listeners.size === 0) stop();
      };
    },
    poll,
    close() {
      listeners.clear();
      stop();
    },
  };
}
