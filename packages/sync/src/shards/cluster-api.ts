import type { RetryOptions } from "../pg-feed.js";
import type { RelayMessage } from "./relay-wire.js";

// The public face of rooms across servers: what `createShardCluster`
// takes and returns, and its errors (relay-pg.ts implements it).

/** Default interval of the liveness check (dead homes, dead members' servers): 500 ms. */
export const DEFAULT_SHARD_CHECK_MS = 500;
/** Default bound of messages queued for Postgres and not yet sent: 16 MiB. */
export const DEFAULT_SHARD_MAX_PENDING_BYTES = 16 * 1024 * 1024;

/** Options of `createShardCluster`. */
export interface ShardClusterOptions {
  /**
   * The database every server of the deployment uses (the same as the
   * store's). The cluster holds one connection of its own, named
   * `svc-shards` in `pg_stat_activity`; a pooler in front must run in
   * session mode (advisory locks and LISTEN live in the session).
   */
  readonly connectionString: string;
  /**
   * How often a server checks which servers are alive: the delay before
   * the members of a crashed server leave their rooms, and before a room
   * whose home crashed moves. Default 500 ms.
   */
  readonly checkMs?: number;
  /** Reconnect delays after the connection is lost (as the change log's `listen.retry`). */
  readonly retry?: RetryOptions;
  /** Bytes of messages waiting for Postgres before the connection is reset. Default 16 MiB. */
  readonly maxPendingBytes?: number;
  /** The largest batch of messages sent or accepted at once, as JSON. Default 4 MiB. */
  readonly maxBatchBytes?: number;
  /** Receives connection losses and dropped messages. Default: `console.error`. */
  readonly onError?: (error: unknown) => void;
}

/** Codes of `ShardClusterError`: local failures of the relay (never sent to clients). */
export const shardClusterErrorCodes = {
  RELAY_LOST: "The shard relay's Postgres connection was lost; reconnecting.",
  RELAY_OVERFLOW: "Messages for other servers piled up past maxPendingBytes; the relay resets.",
  RELAY_UNAVAILABLE: "The shard relay is not connected to Postgres.",
  RELAY_DROPPED: "A message between servers was dropped (malformed or too large).",
  RELAY_CLOSED: "The shard relay was closed.",
} as const;

/** A stable code of `ShardClusterError`. */
export type ShardClusterErrorCode = keyof typeof shardClusterErrorCodes;

/** A failure of the shard relay (a local error, not a wire error). */
export class ShardClusterError extends Error {
  override readonly name = "ShardClusterError";
  readonly code: ShardClusterErrorCode;

  constructor(code: ShardClusterErrorCode, options: { readonly cause?: unknown } = {}) {
    super(shardClusterErrorCodes[code], { cause: options.cause });
    this.code = code;
  }
}

/** What the rooms of a hub hear from the relay. */
export interface RelayHandlers {
  message(from: number, message: RelayMessage): void;
  /** The connection was lost: every lock is gone and messages may have been lost. */
  lost(): void;
}

/** Counters of the relay since it started. */
export interface ShardClusterStats {
  readonly messagesSent: number;
  readonly messagesReceived: number;
  readonly notificationsSent: number;
  readonly notificationsReceived: number;
  readonly dropped: number;
  readonly reconnects: number;
}

/**
 * Rooms shared by every server on one Postgres database: pass it to
 * `attachShards({ cluster })` on each server. The methods below `ready`
 * and `close` are the hub's (`attachShards` calls them).
 */
export interface ShardCluster {
  /** Connects (once) and resolves when this server can take part; rejects if that attempt fails (retries continue). */
  ready(): Promise<void>;
  /** This server's node id while connected, else null. */
  readonly node: number | null;
  readonly checkMs: number;
  /** Takes a room's lock: true when this server is (now) its home. */
  claim(room: string): Promise<boolean>;
  /** Lets a room's lock go (once per successful `claim`), after what was sent before. */
  release(room: string): void;
  /** The server holding a room's lock, or null. */
  holder(room: string): Promise<number | null>;
  /** The servers connected now. */
  liveNodes(): Promise<ReadonlySet<number>>;
  /** Queues a message for another server (in order, per receiver). */
  send(node: number, message: RelayMessage): void;
  /** Registers the hub's handlers (one hub per cluster). */
  listen(handlers: RelayHandlers): void;
  stats(): ShardClusterStats;
  /** Sends what is queued, then ends the connection: the room locks go with it. */
  close(): Promise<void>;
}
