import pg from "pg";

/**
 * A doorbell between servers sharing one Postgres database: `ring()` tells
 * every other server listening on the same channel (and schema) that
 * something changed; what changed is read from a table, never carried in
 * the bell. Built on one dedicated `LISTEN` connection per process, which
 * reconnects after a loss and rings its own listeners once it is back, so
 * whatever was rung meanwhile is read then.
 */
export interface PgSignal {
  /** Tells the other listeners; resolves once Postgres took the `NOTIFY`, rejects while disconnected. */
  ring(): Promise<void>;
  /** Calls `listener` on every other process's ring and after every (re)connection. Returns the remover. */
  onRing(listener: () => void): () => void;
  /** Whether the listening connection is up. */
  connected(): boolean;
  /** Stops listening and closes the connection. */
  close(): Promise<void>;
}

/** Options of `createPgSignal`. */
export interface PgSignalOptions {
  readonly connectionString: string;
  /**
   * The channel's prefix: a lower-case identifier of at most 50 characters.
   * The bell rings on `<prefix>_<8 hex of the schema's md5>`, so apps in
   * other schemas of the same database never hear it.
   */
  readonly channel: string;
  /** The connection's `application_name` in `pg_stat_activity`. Default `svc-signal`. */
  readonly applicationName?: string;
  /** Receives a lost or refused connection (it is retried). Default: ignored. */
  readonly onError?: (error: unknown) => void;
  /** The first wait before reconnecting, doubled up to 5 s. Default 100 ms. */
  readonly reconnectMs?: number;
}

const CHANNEL_PREFIX = /^[a-z_][a-z0-9_]{0,49}$/;
const MAX_RECONNECT_MS = 5_000;

/**
 * Connects lazily, on the first `onRing` or `ring`.
 *
 * @example
 * const signal = createPgSignal({ connectionString: process.env.DATABASE_URL!, channel: "svc_auth" });
 * signal.onRing(() => void journal.poll());
 * await signal.ring();
 */
export function createPgSignal(options: PgSignalOptions): PgSignal {
  if (!CHANNEL_PREFIX.test(options.channel)) {
    throw new TypeError(`createPgSignal: channel must match ${CHANNEL_PREFIX}`);
  }
  const listeners = new Set<() => void>();
  const onError = options.onError ?? (() => {});
  const firstDelay = options.reconnectMs ?? 100;
  let delay = firstDelay;
  let client: pg.Client | undefined;
  let channel: string | undefined;
  let ownPid: number | undefined;
  let connecting: Promise<void> | undefined;
  let retry: NodeJS.Timeout | undefined;
  let closed = false;

  const emit = (): void => {
    for (const listener of listeners) {
      try {
        listener();
      } catch (error) {
        onError(error);
      }
    }
  };

  const scheduleReconnect = (): void => {
    if (closed || retry !== undefined) return;
    retry = setTimeout(() => {
      retry = undefined;
      void connect().catch(() => {});
    }, delay);
    retry.unref();
    delay = Math.min(delay * 2, MAX_RECONNECT_MS);
  };

  const lose = (lost: pg.Client, error: unknown): void => {
    if (client !== lost) return;
    client = undefined;
    onError(error);
    void lost.end().catch(() => {});
    scheduleReconnect();
  };

  const connect = (): Promise<void> => {
    if (closed) return Promise.reject(new Error("createPgSignal: closed"));
    if (client !== undefined) return Promise.resolve();
    connecting ??= (async () => {
      const next = new pg.Client({
        connectionString: options.connectionString,
        application_name: options.applicationName ?? "svc-signal",
      });
      next.on("error", (error) => lose(next, error));
      next.on("end", () => lose(next, new Error("the signal's connection ended")));
      try {
        await next.connect();
        const named = await next.query<{ channel: string; pid: number }>(
          "select $1::text || '_' || substr(md5(current_schema()), 1, 8) as channel, pg_backend_pid() as pid",
          [options.channel],
        );
        const row = named.rows[0];
        if (row === undefined) throw new Error("createPgSignal: no channel name");
        // A plain identifier (checked prefix, hex suffix): safe to quote as is.
        await next.query(`LISTEN "${row.channel}"`);
        next.on("notification", (message) => {
          if (message.processId !== ownPid) emit();
        });
        if (closed) {
          await next.end();
          return;
        }
        channel = row.channel;
        ownPid = row.pid;
        client = next;
        delay = firstDelay;
        // Anything rung while this process was not listening is read now.
        emit();
      } catch (error) {
        next.removeAllListeners("end");
        await next.end().catch(() => {});
        onError(error);
        scheduleReconnect();
        throw error;
      }
    })().finally(() => {
      connecting = undefined;
    });
    return connecting;
  };

  return {
    async ring() {
      await connect();
      const up = client;
      if (up === undefined || channel === undefined)
        throw new Error("createPgSignal: not connected");
      await up.query("select pg_notify($1, '')", [channel]);
    },
    onRing(listener) {
      listeners.add(listener);
      void connect().catch(() => {});
      return () => {
        listeners.delete(listener);
      };
    },
    connected: () => client !== undefined,
    async close() {
      closed = true;
      if (retry !== undefined) clearTimeout(retry);
      retry = undefined;
      await connecting?.catch(() => {});
      const last = client;
      client = undefined;
      listeners.clear();
      if (last !== undefined) {
        last.removeAllListeners("end");
        await last.end().catch(() => {});
      }
    },
  };
}
