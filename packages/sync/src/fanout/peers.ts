import type { ExistsResolver } from "@svc/policy-engine";
import type { LoggedChange } from "../change-log.js";

// The fan-out core every live transport shares (the WebSocket hub, Server-
// Sent Events, the shards hub): the set of open peers, the keepalive that
// runs over them, the drain on shutdown and the delivery of committed
// changes and log resets to each peer's subscriptions. A transport keeps
// only what is its own: the upgrade or request, the framing, and what one
// peer does on a beat or a shutdown (see `FanoutPeer`).

/** One open connection of a live transport, as the fan-out core drives it. */
export interface FanoutPeer {
  /**
   * One keepalive beat: a socket pings (and a peer that missed the
   * previous ping is terminated, see `socketPeer`), a stream writes a
   * comment line.
   */
  beat(): void;
  /** Whether the connection is closed already (nothing to drain). A method, so peers can be spread. */
  isClosed(): boolean;
  /** Calls `listener` once the connection is closed. */
  onceClosed(listener: () => void): void;
  /** The graceful close of a shutdown: 1001 for a socket, the end of a stream. */
  shutdown(): void;
  /** Ends the connection at once: a peer still open when the drain times out. Absent: it is waited for. */
  terminate?(): void;
}

/** A registry of open peers with its keepalive timer; see `createFanout`. */
export interface Fanout<TPeer extends FanoutPeer> extends Iterable<TPeer> {
  /** Open peers. */
  readonly size: number;
  add(peer: TPeer): void;
  delete(peer: TPeer): void;
  /** Stops the keepalive (once; peers stay open until `drain`). */
  stop(): void;
  /**
   * Shuts every open peer down (`FanoutPeer.shutdown`) and resolves once
   * each is closed; those still open after `timeoutMs` (default 1000) are
   * terminated.
   */
  drain(timeoutMs?: number): Promise<void>;
}

/** Default time a drain waits for graceful closes before it terminates: 1 s. */
export const DEFAULT_DRAIN_TIMEOUT_MS = 1000;

/**
 * The open peers of one transport, beaten every `keepaliveMs` (the timer
 * does not hold the process open) until `stop`.
 *
 * @example
 * const peers = createFanout<SocketPeer>({ keepaliveMs: 30_000 });
 * peers.add(socketPeer(ws));
 * peers.stop();
 * await peers.drain();
 */
export function createFanout<TPeer extends FanoutPeer>(options: {
  readonly keepaliveMs: number;
}): Fanout<TPeer> {
  const peers = new Set<TPeer>();
  let keepalive: ReturnType<typeof setInterval> | undefined = setInterval(() => {
    for (const peer of peers) peer.beat();
  }, options.keepaliveMs);
  keepalive.unref();

  return {
    get size() {
      return peers.size;
    },
    [Symbol.iterator]: () => peers.values(),
    add: (peer) => {
      peers.add(peer);
    },
    delete: (peer) => {
      peers.delete(peer);
    },
    stop() {
      clearInterval(keepalive);
      keepalive = undefined;
    },
    async drain(timeoutMs = DEFAULT_DRAIN_TIMEOUT_MS) {
      const open = [...peers].map(
        (peer) =>
          new Promise<void>((resolveClose) => {
            if (peer.isClosed()) return resolveClose();
            peer.onceClosed(resolveClose);
            peer.shutdown();
          }),
      );
      const timer = setTimeout(() => {
        for (const peer of peers) peer.terminate?.();
      }, timeoutMs);
      await Promise.all(open);
      clearTimeout(timer);
    },
  };
}

/** What the fan-out delivers to: a peer's live subscriptions (its `Session`). */
export interface SubscribedPeer {
  readonly session: {
    deliver(changes: readonly LoggedChange[], resolveExists: ExistsResolver): void;
    reset(): void;
  };
  /**
   * Holds writes while one batch is delivered, so the frames a batch makes
   * for one peer leave in one write (a socket's TCP stream). Absent: frames
   * are written as they come.
   */
  readonly corked?: { cork(): void; uncork(): void };
}

/** The change bus a fan-out follows: `Sync.subscribe` and the log's resets. */
export interface ChangeSource {
  subscribe(
    listener: (changes: readonly LoggedChange[], resolveExists: ExistsResolver) => void,
  ): () => void;
  readonly log: { onReset(listener: () => void): () => void };
}

/**
 * Delivers every batch of committed changes to each peer's subscriptions
 * (filtered there by the read policies), and tells each of a log reset
 * (its subscriptions get `RESYNC_REQUIRED`). Returns the stop.
 */
export function followChanges(sync: ChangeSource, peers: Iterable<SubscribedPeer>): () => void {
  const stopChanges = sync.subscribe((changes, resolveExists) => {
    for (const peer of peers) {
      peer.corked?.cork();
      peer.session.deliver(changes, resolveExists);
      peer.corked?.uncork();
    }
  });
  const stopResets = sync.log.onReset(() => {
    for (const peer of peers) peer.session.reset();
  });
  return () => {
    stopChanges();
    stopResets();
  };
}

/**
 * A write bounded by the consumer's backlog: a slow consumer is never
 * buffered without bound. Once `queued(data)` (the bytes that would wait,
 * e.g. a socket's `bufferedAmount` plus the frame) passes `maxQueue`, the
 * data is not written and `overflow` drops the consumer instead; the
 * client reconnects and resumes from its last cursor.
 */
export function boundedWrite<TData>(options: {
  readonly maxQueue: number;
  queued(data: TData): number;
  write(data: TData): void;
  overflow(): void;
}): (data: TData) => void {
  const { maxQueue, queued, write, overflow } = options;
  return (data) => {
    if (queued(data) > maxQueue) overflow();
    else write(data);
  };
}
