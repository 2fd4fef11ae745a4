import type { Client, Notification } from "pg";
import { reconnectDelay } from "../pg-feed.js";
import { ReadyWaiters } from "../ready-waiters.js";
import {
  DEFAULT_SHARD_CHECK_MS,
  DEFAULT_SHARD_MAX_PENDING_BYTES,
  type RelayHandlers,
  type ShardCluster,
  ShardClusterError,
  type ShardClusterOptions,
} from "./cluster-api.js";
import {
  CLAIM_SQL,
  channelOf,
  describeSession,
  HOLDER_SQL,
  LIVE_NODES_SQL,
  NODE_CLASS,
  RELEASE_SQL,
  roomLock,
  type SessionFacts,
  takeNodeId,
  terminateStale,
} from "./relay-locks.js";
import {
  asciiJSON,
  createReassembler,
  DEFAULT_MAX_RELAY_BATCH_BYTES,
  encodeBatch,
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

function scheduleUnref(run: () => void, delayMs: number): () => void {
  const timer = setTimeout(run, delayMs);
  timer.unref();
  return () => clearTimeout(timer);
}

/** What one connection knows about its session. */
interface Session extends SessionFacts {
  readonly client: Client;
  readonly node: number;
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
  let session: Session | undefined;
  let previous: { node: number; pid: number } | undefined;
  let handlers: RelayHandlers | undefined;
  let started = false;
  let closed = false;
  let connecting: Promise<void> | undefined;
  let attempt = 0;
  let cancelReconnect: (() => void) | undefined;
  const waiters = new ReadyWaiters();
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
          channels.push(channelOf(node));
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
      const about = await describeSession(client);
      // A session of this server that Postgres still holds after a loss
      // (it has not noticed the network drop yet) would keep its room locks.
      if (previous !== undefined) await terminateStale(client, about.database, previous);
      const node = await takeNodeId(client);
      const channel = channelOf(node);
      client.on("notification", (message) => onNotification(channel, message));
      await client.query(`LISTEN ${channel}`);
      if (closed) throw new ShardClusterError("RELAY_CLOSED");
      session = { client, node, ...about };
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
          waiters.settle();
        },
        (error: unknown) => {
          waiters.settle(error);
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

  return {
    ready() {
      if (closed) return Promise.reject(new ShardClusterError("RELAY_CLOSED"));
      if (session !== undefined) return Promise.resolve();
      const waiting = waiters.wait();
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
      const rows = await query<{ ok: boolean }>(CLAIM_SQL, roomLock(current, room));
      return rows[0]?.ok === true;
    },
    release(room) {
      const current = session;
      if (current === undefined) return;
      query(RELEASE_SQL, roomLock(current, room)).catch(report);
    },
    async holder(room) {
      const current = session;
      if (current === undefined) throw new ShardClusterError("RELAY_UNAVAILABLE");
      const rows = await query<{ node: string }>(HOLDER_SQL, [
        current.database,
        ...roomLock(current, room),
        NODE_CLASS,
      ]);
      return rows[0] === undefined ? null : Number(rows[0].node);
    },
    async liveNodes() {
      const current = session;
      if (current === undefined) throw new ShardClusterError("RELAY_UNAVAILABLE");
      const rows = await query<{ node: string }>(LIVE_NODES_SQL, [current.database, NODE_CLASS]);
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
      waiters.settle(new ShardClusterError("RELAY_CLOSED"));
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
