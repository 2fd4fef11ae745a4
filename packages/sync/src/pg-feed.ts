import type { Kysely } from "kysely";
import { sql } from "kysely";
import type { Client, Notification } from "pg";
import { ReadyWaiters } from "./ready-waiters.js";
import type { SyncTables } from "./tables.js";

/**
 * Cross-server delivery for `createChangeLog({ listen })`: how the log
 * listens for other servers' commits on Postgres.
 */
export interface ListenOptions {
  /**
   * Where the listener connects: the same database as the store's pool. The
   * listener holds one connection of its own (not one of the pool's), named
   * `svc-change-feed` in `pg_stat_activity` unless the string sets
   * `application_name`.
   */
  readonly connectionString: string;
  /**
   * The `LISTEN`/`NOTIFY` channel, matching `/^[a-z_][a-z0-9_]{0,62}$/`.
   * Default: `svc_changes_` plus the first 8 hex digits of
   * `md5(current_schema())`, so servers on different schemas of one database
   * never wake each other; every server on one schema derives the same name.
   */
  readonly channel?: string;
  /** Reconnect delays after the listener connection is lost (capped exponential backoff, jittered). */
  readonly retry?: RetryOptions;
  /**
   * Runs `run` after `delayMs`; returns the function that cancels it.
   * Default: an unref'd `setTimeout` (a retrying listener never keeps the
   * process alive). Tests inject it to decide when a reconnect happens.
   */
  readonly schedule?: (run: () => void, delayMs: number) => () => void;
  /** A number in [0, 1) for the jitter. Default `Math.random`. */
  readonly random?: () => number;
  /**
   * How often the listener tells the other servers it is there. A server
   * announces its commits only while another has been heard from within
   * five of these, so a server alone on the database sends no notification
   * per commit. Default 1000 ms.
   */
  readonly presenceMs?: number;
  /**
   * Follow other servers only on demand: the tail reads their commits,
   * and the listener says hello, only while something holds `follow()`
   * (svc's server: while a live connection is open). Paused, the server
   * still listens (to hear who follows), still tells followers of its own
   * commits, and costs the others nothing per commit; resumed, the tail
   * starts from the newest committed entry and subscribers catch up from
   * their own cursors as at boot. Default false: the tail always follows.
   */
  readonly onDemand?: boolean;
  /**
   * With `onDemand`: how long the tail keeps following after the last
   * `follow()` is released (a reconnecting client does not pause and
   * resume it). Default 1000 ms; 0 pauses at once.
   */
  readonly idleMs?: number;
}

/** Reconnect backoff: attempt n waits `min(maxDelayMs, initialDelayMs * 2^n)`, jittered to 50-100% of it. */
export interface RetryOptions {
  /** Default 100 ms. */
  readonly initialDelayMs?: number;
  /** Default 10 s. */
  readonly maxDelayMs?: number;
}

/** Codes of `ChangeFeedError`: local failures of the cross-server feed (never sent to clients). */
export const changeFeedErrorCodes = {
  LISTEN_REQUIRES_POSTGRES: "`listen` works only with the postgres dialect (LISTEN/NOTIFY).",
  INVALID_CHANNEL: "The listen channel must match /^[a-z_][a-z0-9_]{0,62}$/.",
  LISTENER_LOST: "The change log's listener connection was lost; reconnecting.",
  FEED_CLOSED: "The change log was closed.",
} as const;

/** A stable code of `ChangeFeedError`. */
export type ChangeFeedErrorCode = keyof typeof changeFeedErrorCodes;

/**
 * A failure of the cross-server feed: bad `listen` options (thrown by
 * `createChangeLog`), a lost listener connection (reported to `onError`), or
 * `ready()` after `close()`. A local error, not a wire error.
 *
 * @example
 * if (error instanceof ChangeFeedError && error.code === "LISTENER_LOST") metrics.count("listener_lost");
 */
export class ChangeFeedError extends Error {
  override readonly name = "ChangeFeedError";
  readonly code: ChangeFeedErrorCode;

  constructor(code: ChangeFeedErrorCode, options: { readonly cause?: unknown } = {}) {
    super(changeFeedErrorCodes[code], { cause: options.cause });
    this.code = code;
  }
}

const CHANNEL = /^[a-z_][a-z0-9_]{0,62}$/;
// Entries per read while catching up.
const BATCH = 500;
const DEFAULT_INITIAL_DELAY_MS = 100;
const DEFAULT_MAX_DELAY_MS = 10_000;
// Looking again for entries the horizon held back: 5 ms, doubling to 200 ms.
const MIN_RECHECK_MS = 5;
const MAX_RECHECK_MS = 200;
// A listening server says it is there this often (`<feedId>:hello`), and
// is taken as gone when it has not been heard from for five of those: while
// nobody else listens, commits are not announced at all (a single server
// pays nothing for the cross-server feed).
const DEFAULT_PRESENCE_MS = 1000;
const PEER_TTL_PRESENCES = 5;
// Other servers remembered at most (the channel is only reachable with
// database access, but the map must not grow without bound).
const MAX_PEERS = 1024;
const HELLO = "hello";
// The third part of an announcement from a server that does not follow:
// its commits are news to the others, but it wants none of theirs.
const QUIET = "quiet";
// A server that pauses says so, so the others stop taking it for a
// follower at once rather than after five presences.
const BYE = "bye";
const DEFAULT_IDLE_MS = 1000;

/** Throws `INVALID_CHANNEL` unless `channel` is a plain lower-case identifier (LISTEN takes no parameter). */
export function checkChannel(channel: string): string {
  if (!CHANNEL.test(channel)) throw new ChangeFeedError("INVALID_CHANNEL");
  return channel;
}

/** The channel expression `record` notifies on, evaluated in the writer's own transaction. */
export function channelSQL(channel: string | undefined) {
  return channel === undefined
    ? sql<string>`'svc_changes_' || substr(md5(current_schema()), 1, 8)`
    : sql<string>`${channel}`;
}

/**
 * How long reconnect attempt `attempt` (0-based) waits: `initialDelayMs`
 * doubled per attempt, capped at `maxDelayMs`, then jittered to 50-100%.
 *
 * @example
 * reconnectDelay(3, { initialDelayMs: 100, maxDelayMs: 1000 }, () => 0); // 400
 */
export function reconnectDelay(
  attempt: number,
  retry: RetryOptions = {},
  random: () => number = Math.random,
): number {
  const initial = retry.initialDelayMs ?? DEFAULT_INITIAL_DELAY_MS;
  const max = retry.maxDelayMs ?? DEFAULT_MAX_DELAY_MS;
  const capped = Math.min(max, initial * 2 ** Math.min(attempt, 30));
  return Math.round(capped * (0.5 + random() / 2));
}

function scheduleUnref(run: () => void, delayMs: number): () => void {
  const timer = setTimeout(run, delayMs);
  timer.unref();
  return () => clearTimeout(timer);
}

/** The part of a log entry the tail looks at (`op: "floor"`: pruning's marker). */
interface FeedEntry {
  readonly cursor: number;
  readonly op: string;
}

/** What the feed needs from its change log. */
export interface PgFeedDeps<TEntry extends FeedEntry> {
  readonly db: Kysely<SyncTables>;
  readonly listen: ListenOptions;
  read(since: number, limit: number): Promise<TEntry[]>;
  bounds(): Promise<{ readonly oldest: number | null; readonly latest: number }>;
  /** The newest committed cursor, whether or not readers may read it yet. */
  top(): Promise<number>;
  /** Hands subscribers a run of entries other than reset markers, in cursor order. */
  deliver(entries: TEntry[]): void;
  reset(): void;
  onError(error: unknown): void;
  /** Milliseconds since the epoch, for `status().behindSince`. */
  now(): number;
  /**
   * With `onDemand`: false when the tail pauses; true when it resumes,
   * once its new start point is read (entries after it will be delivered).
   */
  following?(following: boolean): void;
}

/** The tail's state, for metrics (`PgFeed.status`). */
export interface PgFeedStatus {
  /** Whether the listener connection is up with `LISTEN` active. */
  readonly listening: boolean;
  /**
   * Since when (`now()`) the tail has been behind a commit it knows of after
   * reading (the horizon holds the entry back, or the read failed);
   * undefined while caught up.
   */
  readonly behindSince: number | undefined;
  /** The last cursor handed to subscribers; undefined before the tail started. */
  readonly delivered: number | undefined;
  /** The newest cursor known to be committed that the tail waits for. */
  readonly target: number;
  /** With `onDemand`: true while nothing holds `follow()` and the tail is paused. */
  readonly paused: boolean;
  /** With `onDemand`: how many times the tail started following (the first `follow()` and each after a pause). */
  readonly resumes: number;
}

/** The listener and the ordered tail of one change log. */
export interface PgFeed {
  /** Starts (once) and resolves when LISTEN is active; rejects if that attempt fails (retries continue). */
  ready(): Promise<void>;
  /** Starts in the background (errors go to `onError`). */
  start(): void;
  /** Reads and delivers what is new (after a local commit or a notification). */
  kick(): void;
  /**
   * This process committed entries up to `cursor` (undefined: not known,
   * e.g. a reset): reads them, and tells the other servers with one
   * notification from the listener's connection (one in flight at a time;
   * commits meanwhile share the next).
   */
  committed(cursor: number | undefined): void;
  /**
   * Resolves once `delivered` has its start value (never rejects):
   * immediately when not started or paused, else after the start point of
   * the current run of following is read.
   */
  settled(): Promise<void>;
  /**
   * Holds the tail following other servers (with `onDemand`; without it
   * the tail always follows and this only starts the listener); returns
   * the release. The first holder resumes a paused tail; the last release
   * pauses it after `idleMs`.
   */
  follow(): () => void;
  /** Whether the tail follows now with its start point read (always true without `onDemand` once started). */
  following(): boolean;
  /** Where the tail stands (no I/O). */
  status(): PgFeedStatus;
  close(): Promise<void>;
}

/**
 * One ordered tail per log: `delivered` is the last cursor handed to
 * subscribers. Every trigger (a notification, a local commit, a reconnect)
 * reads `read(delivered, 500)` until nothing is left, one loop at a time
 * (a trigger during a loop runs it once more), so each entry is delivered
 * once and in cursor order, whichever server wrote it.
 */
export function createPgFeed<TEntry extends FeedEntry>(deps: PgFeedDeps<TEntry>): PgFeed {
  const { listen } = deps;
  const schedule = listen.schedule ?? scheduleUnref;
  const random = listen.random ?? Math.random;
  if (listen.channel !== undefined) checkChannel(listen.channel);
  const presenceMs = listen.presenceMs ?? DEFAULT_PRESENCE_MS;
  const peerTtlMs = presenceMs * PEER_TTL_PRESENCES;
  const onDemand = listen.onDemand === true;
  const idleMs = listen.idleMs ?? DEFAULT_IDLE_MS;

  let channel = listen.channel;
  let delivered: number | undefined;
  let initialising: Promise<void> | undefined;
  let started = false;
  let closed = false;
  let connecting = false;
  let current: Client | undefined;
  let attempt = 0;
  let cancelReconnect: (() => void) | undefined;
  let cancelRetryTail: (() => void) | undefined;
  let tailFailures = 0;
  let running: Promise<void> | undefined;
  let attemptInFlight: Promise<void> | undefined;
  let again = false;
  // The newest cursor known to be committed (by this process, or announced
  // by another): while the tail is behind it, the horizon holds entries back
  // and the tail looks again shortly.
  let wanted = 0;
  // The newest cursor this process committed itself: waited for even while
  // the listener is down (nothing else would wake the tail for it).
  let wantedLocally = 0;
  let cancelRecheck: (() => void) | undefined;
  let recheckDelay = MIN_RECHECK_MS;
  // Since when the tail, after reading, is still behind what it waits for.
  let behindSince: number | undefined;
  // Notifications: this process's id (its own are skipped), the newest
  // cursor to announce, and whether one is on its way.
  const feedId = Math.floor(random() * 2 ** 48).toString(36);
  let announce: { cursor: number | undefined } | undefined;
  let announcing = false;
  // The other servers listening on the channel, by feed id, with when each
  // was last heard from; and this server's presence timer.
  const peers = new Map<string, number>();
  let presenceTimer: NodeJS.Timeout | undefined;
  let helloWanted = false;
  let byeWanted = false;
  // Connections being ended, so `close()` can wait for their sockets.
  const ending = new Set<Promise<void>>();
  const waiters = new ReadyWaiters();
  // Following on demand: whether the tail follows other servers now, how
  // many hold it, the pending pause, and the run of following (bumped at
  // each pause, so a read or a start point of an earlier run is dropped).
  let follows = !onDemand;
  let holders = 0;
  let run = 0;
  let resumes = 0;
  let resumeFailures = 0;
  let cancelPause: (() => void) | undefined;
  let cancelResume: (() => void) | undefined;
  // `settled()` callers waiting for this run's start point.
  let startWaiters: (() => void)[] = [];

  const end = (client: Client): Promise<void> => {
    const ended: Promise<void> = client
      .end()
      .catch(() => undefined)
      .finally(() => ending.delete(ended));
    ending.add(ended);
    return ended;
  };

  const report = (error: unknown): void => {
    try {
      deps.onError(error);
    } catch {
      // A failing reporter must not stop the feed.
    }
  };

  const releaseStartWaiters = (): void => {
    const pending = startWaiters;
    startWaiters = [];
    for (const resolve of pending) resolve();
  };

  // Before LISTEN: whatever commits between this read and LISTEN is read by
  // the tail run that follows LISTEN, so nothing falls in between. After a
  // pause, the same from the newest entry: subscribers read what came
  // before from the log with their own cursors (see `settled`).
  const initialise = (): Promise<void> => {
    if (initialising !== undefined) return initialising;
    const runOf = run;
    const attempt: Promise<void> = deps.bounds().then(
      (bounds) => {
        if (runOf !== run) return;
        delivered ??= bounds.latest;
        releaseStartWaiters();
      },
      (error: unknown) => {
        if (initialising === attempt) initialising = undefined;
        throw error;
      },
    );
    initialising = attempt;
    return attempt;
  };

  const resolveChannel = async (): Promise<string> => {
    if (channel !== undefined) return channel;
    const result = await sql<{
      channel: string;
    }>`select ${channelSQL(undefined)} as channel`.execute(deps.db);
    channel = checkChannel(result.rows[0]?.channel ?? "");
    return channel;
  };

  const drain = async (): Promise<void> => {
    // A pause meanwhile ends this run: what it read is nobody's now.
    const runOf = run;
    for (;;) {
      const since = delivered;
      if (closed || since === undefined) return;
      const entries = await deps.read(since, BATCH);
      if (closed || runOf !== run || entries.length === 0) return;
      // Pruning leaves a floor marker at the newest entry it removed: seeing
      // it means entries after `since` are gone (cursor gaps are normal).
      if (entries[0]?.op === "floor") {
        const { latest } = await deps.bounds();
        if (closed || runOf !== run) return;
        delivered = latest;
        deps.reset();
        continue;
      }
      let changes: TEntry[] = [];
      for (const entry of entries) {
        if (entry.op === "reset") {
          if (changes.length > 0) deps.deliver(changes);
          changes = [];
          delivered = entry.cursor;
          deps.reset();
        } else {
          changes.push(entry);
        }
      }
      const last = entries[entries.length - 1];
      if (last !== undefined) delivered = last.cursor;
      if (changes.length > 0) deps.deliver(changes);
      if (entries.length < BATCH) return;
    }
  };

  const kick = (): void => {
    if (closed || delivered === undefined) return;
    if (running !== undefined) {
      again = true;
      return;
    }
    running = (async () => {
      try {
        do {
          again = false;
          await drain();
        } while (again && !closed);
        tailFailures = 0;
        lookAgainIfHeld();
      } catch (error) {
        report(error);
        if (delivered !== undefined && delivered < target()) behindSince ??= deps.now();
        // The database may be back before anything else triggers a read.
        if (!closed && cancelRetryTail === undefined) {
          cancelRetryTail = schedule(
            () => {
              cancelRetryTail = undefined;
              kick();
            },
            reconnectDelay(tailFailures++, listen.retry, random),
          );
        }
      } finally {
        running = undefined;
      }
    })();
  };

  // What the tail waits for: other servers' commits only while listening (a
  // reconnect reads up to the newest commit anyway); this process's own always.
  function target(): number {
    return current === undefined ? wantedLocally : Math.max(wanted, wantedLocally);
  }

  // Entries committed but above the horizon (an older transaction is still
  // running somewhere) wake nobody when it ends: look again, backing off.
  function lookAgainIfHeld(): void {
    if (closed || delivered === undefined || delivered >= target()) {
      recheckDelay = MIN_RECHECK_MS;
      behindSince = undefined;
      return;
    }
    behindSince ??= deps.now();
    if (cancelRecheck !== undefined) return;
    // Not `schedule`: that one paces reconnects (tests hold it).
    cancelRecheck = scheduleUnref(() => {
      cancelRecheck = undefined;
      kick();
    }, recheckDelay);
    recheckDelay = Math.min(MAX_RECHECK_MS, recheckDelay * 2);
  }

  // `peers` is ordered by when each was last heard from (re-inserted on
  // each notification), so the ones gone quiet are at its front.
  const hasPeers = (): boolean => {
    const now = performance.now();
    for (const [peer, heardAt] of peers) {
      if (now - heardAt <= peerTtlMs) return true;
      peers.delete(peer);
    }
    return false;
  };

  // A peer's notification: remembers it, and when it is new (or back after
  // it was taken as gone) says hello back and tells it this server's newest
  // commit, which it may have missed while nobody announced.
  const heardFrom = (peer: string): void => {
    const heardAt = peers.get(peer);
    const isNew = heardAt === undefined || performance.now() - heardAt > peerTtlMs;
    if (heardAt === undefined && peers.size >= MAX_PEERS) {
      hasPeers(); // drops the ones gone quiet
      if (peers.size >= MAX_PEERS) return;
    }
    peers.delete(peer);
    peers.set(peer, performance.now());
    if (!isNew) return;
    // Paused: no hello back (their commits are nobody's here), but ours
    // are news to them.
    if (follows) helloWanted = true;
    if (wantedLocally > 0) queueAnnouncement(wantedLocally);
    else if (helloWanted && !announcing) void sendAnnouncements();
  };

  const queueAnnouncement = (cursor: number | undefined): void => {
    if (closed || !hasPeers()) return;
    announce =
      announce === undefined
        ? { cursor }
        : {
            cursor:
              announce.cursor === undefined || cursor === undefined
                ? undefined
                : Math.max(announce.cursor, cursor),
          };
    if (!announcing) void sendAnnouncements();
  };

  const sendAnnouncements = async (): Promise<void> => {
    announcing = true;
    try {
      while (
        (announce !== undefined || helloWanted || byeWanted) &&
        current !== undefined &&
        !closed
      ) {
        const name = await resolveChannel();
        if (byeWanted) {
          byeWanted = false;
          if (follows) continue;
          await current.query("select pg_notify($1, $2)", [name, `${feedId}:${BYE}`]);
          continue;
        }
        if (helloWanted) {
          helloWanted = false;
          if (!follows) continue;
          await current.query("select pg_notify($1, $2)", [name, `${feedId}:${HELLO}`]);
          continue;
        }
        if (announce === undefined) continue;
        // A paused server's commits say so: the others do not take it for
        // a follower and announce theirs to it.
        const payload = `${feedId}:${announce.cursor ?? ""}${follows ? "" : `:${QUIET}`}`;
        announce = undefined;
        await current.query("select pg_notify($1, $2)", [name, payload]);
      }
    } catch (error) {
      // A lost connection reconnects; the others catch up when it is back.
      report(error);
    } finally {
      announcing = false;
    }
  };

  const scheduleReconnect = (): void => {
    if (closed || cancelReconnect !== undefined) return;
    cancelReconnect = schedule(
      () => {
        cancelReconnect = undefined;
        attemptConnect();
      },
      reconnectDelay(attempt++, listen.retry, random),
    );
  };

  const lost = (client: Client, error: unknown): void => {
    if (client !== current) return;
    current = undefined;
    void end(client);
    if (closed) return;
    report(new ChangeFeedError("LISTENER_LOST", { cause: error }));
    scheduleReconnect();
  };

  const connect = async (): Promise<void> => {
    if (closed || connecting || current !== undefined) return;
    connecting = true;
    let client: Client | undefined;
    try {
      // Paused, the tail has no start point: a resume reads it.
      if (follows) await initialise();
      const name = await resolveChannel();
      const { default: pg } = await import("pg");
      client = new pg.Client({
        connectionString: listen.connectionString,
        application_name: "svc-change-feed",
        keepAlive: true,
      });
      const self = client;
      self.on("error", (error) => lost(self, error));
      self.on("end", () => lost(self, new Error("the listener connection ended")));
      self.on("notification", (message: Notification) => {
        if (message.channel !== name) return;
        const [sender, announced, flag] = (message.payload ?? "").split(":");
        // Our own commits were read already after their local publish.
        if (sender === feedId) return;
        if (flag === QUIET || announced === BYE) {
          // A paused server: its commits are news, it wants none of ours.
          if (sender !== undefined) peers.delete(sender);
        } else if (announced !== undefined && sender !== undefined) heardFrom(sender);
        if (announced === HELLO || announced === BYE) return;
        // Paused: other servers' commits are nobody's here.
        if (!follows) return;
        // "<sender>:<cursor>", "<sender>:" (a reset), or an older server's "<cursor>".
        const cursor = announced === "" ? Number.NaN : Number(announced ?? sender);
        if (Number.isSafeInteger(cursor)) {
          if (delivered !== undefined && cursor <= delivered) return;
          wanted = Math.max(wanted, cursor);
        } else {
          deps.top().then((top) => {
            wanted = Math.max(wanted, top);
            kick();
          }, report);
        }
        kick();
      });
      await self.connect();
      if (closed) throw new ChangeFeedError("FEED_CLOSED");
      // The name passed `checkChannel`, so quoting it needs no escaping.
      await self.query(`LISTEN "${name}"`);
      if (closed) throw new ChangeFeedError("FEED_CLOSED");
      // Commits made while no notification could reach us may still be
      // held back by the horizon: wait for them as for announced ones.
      wanted = Math.max(wanted, await deps.top());
      if (closed) throw new ChangeFeedError("FEED_CLOSED");
      current = self;
      attempt = 0;
      connecting = false;
      waiters.settle();
      // Others learn of this server now and every `presenceMs` after
      // (while it follows: paused, it says nothing).
      if (follows) {
        helloWanted = true;
        if (!announcing) void sendAnnouncements();
      }
      presenceTimer ??= setInterval(() => {
        if (!follows) return;
        helloWanted = true;
        if (!announcing) void sendAnnouncements();
      }, presenceMs);
      presenceTimer.unref();
      kick();
    } catch (error) {
      connecting = false;
      if (client !== undefined) await end(client);
      waiters.settle(error);
      if (closed) return;
      report(error);
      scheduleReconnect();
    }
  };

  const attemptConnect = (): void => {
    const attemptNow = connect().finally(() => {
      if (attemptInFlight === attemptNow) attemptInFlight = undefined;
    });
    attemptInFlight = attemptNow;
  };

  const start = (): void => {
    if (started || closed) return;
    started = true;
    attemptConnect();
  };

  const notifyFollowing = (following: boolean): void => {
    try {
      deps.following?.(following);
    } catch (error) {
      report(error);
    }
  };

  // Reads this run's start point (the newest entry) and what is committed
  // but still held back by the horizon, then tails from there; retried
  // with backoff while the database refuses.
  const startFollowing = (runOf: number): void => {
    initialise()
      .then(() => deps.top())
      .then(
        (top) => {
          if (closed || runOf !== run) return;
          resumeFailures = 0;
          wanted = Math.max(wanted, top);
          notifyFollowing(true);
          kick();
        },
        (error: unknown) => {
          if (closed || runOf !== run) return;
          report(error);
          cancelResume = schedule(
            () => {
              cancelResume = undefined;
              if (runOf === run && follows) startFollowing(runOf);
            },
            reconnectDelay(resumeFailures++, listen.retry, random),
          );
        },
      );
  };

  const resume = (): void => {
    follows = true;
    resumes += 1;
    byeWanted = false;
    // Others learn of this server again and announce their commits to it;
    // a peer that hears the hello tells it its newest commit, so what was
    // committed before is read too.
    helloWanted = true;
    if (current !== undefined && !announcing) void sendAnnouncements();
    startFollowing(run);
  };

  const pause = (): void => {
    if (!follows || closed) return;
    follows = false;
    run += 1;
    delivered = undefined;
    initialising = undefined;
    helloWanted = false;
    behindSince = undefined;
    recheckDelay = MIN_RECHECK_MS;
    cancelRecheck?.();
    cancelRecheck = undefined;
    cancelRetryTail?.();
    cancelRetryTail = undefined;
    cancelResume?.();
    cancelResume = undefined;
    releaseStartWaiters();
    notifyFollowing(false);
    // The others stop announcing to this server now, not five presences later.
    byeWanted = true;
    if (current !== undefined && !announcing) void sendAnnouncements();
  };

  return {
    ready() {
      if (closed) return Promise.reject(new ChangeFeedError("FEED_CLOSED"));
      if (current !== undefined) return Promise.resolve();
      const waiting = waiters.wait();
      start();
      return waiting;
    },
    start,
    kick,
    committed(cursor) {
      if (cursor !== undefined) wantedLocally = Math.max(wantedLocally, cursor);
      else {
        // Not known: wait for whatever is committed now.
        deps.top().then((top) => {
          wantedLocally = Math.max(wantedLocally, top);
          kick();
        }, report);
      }
      kick();
      // Commits waiting for the next notification share it; without a known
      // cursor (a reset) the others just look. Alone: nobody to tell.
      queueAnnouncement(cursor);
    },
    settled() {
      // Waits for the start point even through failed reads of it (they
      // are retried): a cursor read before it could leave a gap.
      if (closed || !started || !follows || delivered !== undefined) return Promise.resolve();
      return new Promise<void>((resolve) => startWaiters.push(resolve));
    },
    follow() {
      start();
      if (!onDemand || closed) return () => undefined;
      holders += 1;
      cancelPause?.();
      cancelPause = undefined;
      if (!follows) resume();
      let released = false;
      return () => {
        if (released) return;
        released = true;
        holders -= 1;
        if (holders > 0 || closed || !follows || cancelPause !== undefined) return;
        if (idleMs <= 0) {
          pause();
          return;
        }
        cancelPause = scheduleUnref(() => {
          cancelPause = undefined;
          if (holders === 0) pause();
        }, idleMs);
      };
    },
    following() {
      return follows && !closed && delivered !== undefined;
    },
    status() {
      const waitingFor = target();
      const behind = !closed && delivered !== undefined && delivered < waitingFor;
      return {
        listening: current !== undefined && !closed,
        behindSince: behind ? behindSince : undefined,
        delivered,
        target: waitingFor,
        paused: !follows,
        resumes,
      };
    },
    async close() {
      if (closed) return;
      closed = true;
      cancelReconnect?.();
      cancelRetryTail?.();
      cancelRecheck?.();
      cancelPause?.();
      cancelResume?.();
      if (presenceTimer !== undefined) clearInterval(presenceTimer);
      releaseStartWaiters();
      waiters.settle(new ChangeFeedError("FEED_CLOSED"));
      const client = current;
      current = undefined;
      if (client !== undefined) void end(client);
      await Promise.all([running?.catch(() => undefined), attemptInFlight]);
      await Promise.all([...ending]);
    },
  };
}
