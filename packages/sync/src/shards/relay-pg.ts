import { createHash } from "node:crypto";
import type { Client, Notification } from "pg";
import { type RetryOptions, reconnectDelay } from "../pg-feed.js";
import {
  asciiJSON,
  createReassembler,
  DEFAULT_MAX_RELAY_BATCH_BYTES,
  encodeBatch,
  type RelayMessage,
  relayMessageSchema,
} from "./relay-wire.js";

// Servers sharing rooms coordinate through Postgres alone, over one
// connection per server (`svc-shards` in pg_stat_activity):
//
// - who is alive: each server holds a session-level advisory lock on its
//   node id; Postgres drops it when the server's connection ends (a crash,
//   kill -9, a network loss it notices), so pg_locks lists live servers;
// - who runs a room (its home): the server holding the room's advisory
//   lock (pg_try_advisory_lock); pg_locks tells the others which one;
// - messages: NOTIFY on the receiver's own channel, `svc_shard_<node id>`,
//   batched and split into parts under the 8000-byte payload limit.
//   Postgres delivers one session's notifications in the order sent, so
//   what one server sends another arrives in order.

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

const NODE_LOCKS = "svc.shard.node";
const ROOM_LOCKS = "svc.shard.room";

/** A positive 31-bit number from a string: advisory lock keys (the int4 form). */
function key31(text: string): number {
  return createHash("sha256").update(text).digest().readUInt32BE(0) & 0x7fffffff;
}

function scheduleUnref(run: () => void, delayMs: number): () => void {
  const timer = setTimeout(run, delayMs);
  timer.unref();
  return () => clearTimeout(timer);
}

/** What one connection knows about its session. */
interface Session {
  readonly client: Client;
  readonly node: number;
  readonly pid: number;
  readonly database: string;
  /** The lock class of rooms: one per schema, so schemas of one database never share a room. */
  readonly roomClass: number;
}

/**
 * The Postgres side of rooms across servers: one connection per server,
 * advisory locks for liveness and homes, NOTIFY for messages. Reconnects
 * after a loss with a new node id (its old session is terminated if
 * Postgres still holds it, so its locks go).
 *
 * @example
 * const cluster = createShardCluster({ connectionString: process.env.DATABASE_URL ?? "" });
 * await cluster.ready();
 * const shards = attachShards(server, { policies, authenticate, trustedOrigins, cluster });
 * // at shutdown:
 * await shards.close();
 * await cluster.close();
 */
export function createShardCluster(options: ShardClusterOptions): ShardCluster {
  const onError =
    options.onError ?? ((error: unknown) => console.error("[@svc/sync] shard relay", error));
  const maxPending = options.maxPendingBytes ?? DEFAULT_SHARD_MAX_PENDING_BYTES;
  const maxBatch = options.maxBatchBytes ?? DEFAULT_MAX_RELAY_BATCH_BYTES;
  const nodeClass = key31(NODE_LOCKS);
  let session: Session | undefined;
  let previous: { node: number; pid: number } | undefined;
  let handlers: RelayHandlers | undefined;
  let started = false;
  let closed = false;
  let connecting: Promise<void> | undefined;
  let attempt = 0;
  let cancelReconnect: (() => void) | undefined;
  let waiters: { resolve(): void; reject(error: unknown): void }[] = [];
  // Outgoing: serialized messages per receiver, gathered for the flush
  // queued last (undefined: none is open), and their bytes until sent.
  let outbox: Map<number, string[]> | undefined;
  let pendingBytes = 0;
  // The statements of the session, one after another.
  let tail: Promise<unknown> = Promise.resolve();
  const seqs = new Map<number, number>();
  let reassembler = createReassembler(maxBatch);
  const counters = {
    messagesSent: 0,
    messagesReceived: 0,
    notificationsSent: 0,
    notificationsReceived: 0,
    dropped: 0,
    reconnects: 0,
  };

  const report = (error: unknown): void => {
    try {
      onError(error);
    } catch {
      // A failing reporter must not stop the relay.
    }
  };

  const settleWaiters = (error?: unknown): void => {
    const pending = waiters;
    waiters = [];
    for (const waiter of pending) {
      if (error === undefined) waiter.resolve();
      else waiter.reject(error);
    }
  };

  const drop = (problem: string): void => {
    counters.dropped += 1;
    report(new ShardClusterError("RELAY_DROPPED", { cause: new Error(problem) }));
  };

  const onNotification = (channel: string, message: Notification): void => {
    if (message.channel !== channel || message.payload === undefined) return;
    counters.notificationsReceived += 1;
    const received = reassembler.accept(message.payload);
    if ("pending" in received) return;
    if ("problem" in received) {
      drop(received.problem);
      return;
    }
    for (const raw of received.messages) {
      const parsed = relayMessageSchema.safeParse(raw);
      if (!parsed.success) {
        drop(`node ${received.from} sent a malformed message`);
        continue;
      }
      counters.messagesReceived += 1;
      try {
        handlers?.message(received.from, parsed.data);
      } catch (error) {
        report(error);
      }
    }
  };

  /**
   * Runs statements one at a time, in the order asked for, on the current
   * session: the order of NOTIFYs, lock changes and questions is the order
   * the hub asked for them.
   */
  const enqueue = <T>(current: Session, statement: () => Promise<T>): Promise<T> => {
    const run = tail.then(() => {
      if (session !== current) throw new ShardClusterError("RELAY_UNAVAILABLE");
      return statement();
    });
    tail = run.catch(() => undefined);
    return run;
  };

  /** Sends one gathered outbox in one statement. */
  const flush = async (current: Session, batches: Map<number, string[]>): Promise<void> => {
    const channels: string[] = [];
    const payloads: string[] = [];
    let bytes = 0;
    for (const [node, texts] of batches) {
      const nextSeq = (): number => {
        const seq = (seqs.get(node) ?? 0) + 1;
        seqs.set(node, seq);
        return seq;
      };
      // Batches of at most maxBatch bytes (one message may fill one alone).
      let batch: string[] = [];
      let size = 2;
      const cut = (): void => {
        if (batch.length === 0) return;
        for (const payload of encodeBatch(current.node, nextSeq, `[${batch.join(",")}]`)) {
          channels.push(`svc_shard_${node}`);
          payloads.push(payload);
        }
        batch = [];
        size = 2;
      };
      for (const text of texts) {
        bytes += text.length;
        if (size + text.length + 1 > maxBatch) cut();
        batch.push(text);
        size += text.length + 1;
      }
      cut();
    }
    if (payloads.length === 0) return;
    counters.notificationsSent += payloads.length;
    try {
      await current.client.query(
        "select pg_notify(c, p) from unnest($1::text[], $2::text[]) as t(c, p)",
        [channels, payloads],
      );
    } catch (error) {
      // A lost connection resets through its own handler; a refused statement alone is reported.
      report(new ShardClusterError("RELAY_DROPPED", { cause: error }));
    } finally {
      if (session === current) pendingBytes -= bytes;
    }
  };

  /**
   * The outbox of the flush queued last: messages sent until it runs go
   * with it (so they gather while Postgres is busy), unless a statement
   * was queued after it (see `query`).
   */
  const openOutbox = (current: Session): Map<number, string[]> => {
    if (outbox !== undefined) return outbox;
    const batches = new Map<number, string[]>();
    outbox = batches;
    void enqueue(current, () => {
      if (outbox === batches) outbox = undefined;
      return flush(current, batches);
    }).catch(() => undefined);
    return batches;
  };

  /** A statement after every message sent before it, and before every one sent after. */
  const query = async <T>(sql: string, params: unknown[]): Promise<T[]> => {
    const current = session;
    if (current === undefined) throw new ShardClusterError("RELAY_UNAVAILABLE");
    // The flush queued so far is closed: later messages go to a flush after this statement.
    outbox = undefined;
    const result = await enqueue(current, () => current.client.query(sql, params));
    return result.rows as T[];
  };

  const end = (client: Client): void => {
    void client.end().catch(() => undefined);
  };

  const lose = (client: Client, error: unknown): void => {
    if (session?.client !== client) return;
    previous = { node: session.node, pid: session.pid };
    session = undefined;
    outbox = undefined;
    pendingBytes = 0;
    seqs.clear();
    reassembler = createReassembler(maxBatch);
    end(client);
    if (closed) return;
    report(new ShardClusterError("RELAY_LOST", { cause: error }));
    try {
      handlers?.lost();
    } catch (failure) {
      report(failure);
    }
    scheduleReconnect();
  };

  const scheduleReconnect = (): void => {
    if (closed || cancelReconnect !== undefined) return;
    cancelReconnect = scheduleUnref(
      () => {
        cancelReconnect = undefined;
        void connect();
      },
      reconnectDelay(attempt++, options.retry),
    );
  };

  const open = async (): Promise<void> => {
    const { default: pg } = await import("pg");
    const client = new pg.Client({
      connectionString: options.connectionString,
      application_name: "svc-shards",
      keepAlive: true,
    });
    client.on("error", (error) => lose(client, error));
    client.on("end", () => lose(client, new Error("the shard relay connection ended")));
    try {
      await client.connect();
      const about = await client.query<{ schema: string; pid: number; database: string }>(
        `select current_schema() as schema, pg_backend_pid() as pid,
           (select oid from pg_database where datname = current_database())::text as database`,
      );
      const row = about.rows[0];
      if (row === undefined) throw new Error("no session details");
      // A session of this server that Postgres still holds after a loss
      // (it has not noticed the network drop yet) would keep its room locks.
      if (previous !== undefined) {
        await client.query(
          `select pg_terminate_backend(pid) from pg_locks
            where locktype = 'advisory' and database = $1::oid and classid = $2::oid
              and objid = $3::oid and objsubid = 2 and pid = $4 and granted`,
          [row.database, nodeClass, previous.node, previous.pid],
        );
      }
      let node = 0;
      for (let tries = 0; node === 0; tries++) {
        if (tries === 20) throw new Error("no free node id");
        const candidate = 1 + Math.floor(Math.random() * 0x7ffffffe);
        const taken = await client.query<{ ok: boolean }>(
          "select pg_try_advisory_lock($1::int4, $2::int4) as ok",
          [nodeClass, candidate],
        );
        if (taken.rows[0]?.ok === true) node = candidate;
      }
      const channel = `svc_shard_${node}`;
      client.on("notification", (message) => onNotification(channel, message));
      await client.query(`LISTEN ${channel}`);
      if (closed) throw new ShardClusterError("RELAY_CLOSED");
      session = {
        client,
        node,
        pid: row.pid,
        database: row.database,
        roomClass: key31(`${ROOM_LOCKS}\u0000${row.schema}`),
      };
      previous = undefined;
    } catch (error) {
      client.removeAllListeners("end");
      client.on("error", () => undefined);
      end(client);
      throw error;
    }
  };

  const connect = (): Promise<void> => {
    connecting ??= open()
      .then(
        () => {
          if (attempt > 0) counters.reconnects += 1;
          attempt = 0;
          settleWaiters();
        },
        (error: unknown) => {
          settleWaiters(error);
          if (closed) return;
          report(error);
          scheduleReconnect();
        },
      )
      .finally(() => {
        connecting = undefined;
      });
    return connecting;
  };

  const roomKey = (room: string): number => key31(room);

  return {
    ready() {
      if (closed) return Promise.reject(new ShardClusterError("RELAY_CLOSED"));
      if (session !== undefined) return Promise.resolve();
      const waiting = new Promise<void>((resolve, reject) => waiters.push({ resolve, reject }));
      if (!started) {
        started = true;
        void connect();
      }
      return waiting;
    },
    get node() {
      return session?.node ?? null;
    },
    checkMs: options.checkMs ?? DEFAULT_SHARD_CHECK_MS,
    async claim(room) {
      const current = session;
      if (current === undefined) throw new ShardClusterError("RELAY_UNAVAILABLE");
      const rows = await query<{ ok: boolean }>(
        "select pg_try_advisory_lock($1::int4, $2::int4) as ok",
        [current.roomClass, roomKey(room)],
      );
      return rows[0]?.ok === true;
    },
    release(room) {
      const current = session;
      if (current === undefined) return;
      query("select pg_advisory_unlock($1::int4, $2::int4)", [
        current.roomClass,
        roomKey(room),
      ]).catch(report);
    },
    async holder(room) {
      const current = session;
      if (current === undefined) throw new ShardClusterError("RELAY_UNAVAILABLE");
      const rows = await query<{ node: string }>(
        `select n.objid::int8::text as node
           from pg_locks r join pg_locks n on n.pid = r.pid
          where r.locktype = 'advisory' and r.database = $1::oid and r.classid = $2::oid
            and r.objid = $3::oid and r.objsubid = 2 and r.granted
            and n.locktype = 'advisory' and n.database = $1::oid and n.classid = $4::oid
            and n.objsubid = 2 and n.granted`,
        [current.database, current.roomClass, roomKey(room), nodeClass],
      );
      return rows[0] === undefined ? null : Number(rows[0].node);
    },
    async liveNodes() {
      const current = session;
      if (current === undefined) throw new ShardClusterError("RELAY_UNAVAILABLE");
      const rows = await query<{ node: string }>(
        `select objid::int8::text as node from pg_locks
          where locktype = 'advisory' and database = $1::oid and classid = $2::oid
            and objsubid = 2 and granted`,
        [current.database, nodeClass],
      );
      const live = new Set(rows.map((row) => Number(row.node)));
      // What was kept per server (numbering, parts) goes with the server.
      reassembler.retain(live);
      for (const node of [...seqs.keys()]) if (!live.has(node)) seqs.delete(node);
      return live;
    },
    send(node, message) {
      const current = session;
      if (current === undefined || closed) return;
      const text = asciiJSON(message);
      if (text.length + 2 > maxBatch) {
        drop(`a ${message.t} message of ${text.length} bytes is over maxBatchBytes`);
        return;
      }
      pendingBytes += text.length;
      if (pendingBytes > maxPending) {
        lose(current.client, new ShardClusterError("RELAY_OVERFLOW"));
        return;
      }
      counters.messagesSent += 1;
      const batches = openOutbox(current);
      let queue = batches.get(node);
      if (queue === undefined) {
        queue = [];
        batches.set(node, queue);
      }
      queue.push(text);
    },
    listen(next) {
      handlers = next;
    },
    stats() {
      return { ...counters };
    },
    async close() {
      if (closed) return;
      closed = true;
      cancelReconnect?.();
      settleWaiters(new ShardClusterError("RELAY_CLOSED"));
      await connecting?.catch(() => undefined);
      const current = session;
      if (current === undefined) return;
      // What the hub sent last (leaves, rooms handed over) goes out first.
      await tail;
      session = undefined;
      current.client.removeAllListeners("end");
      current.client.on("error", () => undefined);
      await current.client.end().catch(() => undefined);
    },
  };
}
