import type { ExistsResolver } from "@svc/policy-engine";
import type { AuthContext } from "@svc/schema";
import { type Row, StoreError } from "@svc/store";
import type { WebSocket } from "ws";
import type { LoggedChange } from "./change-log.js";
import type { Sync } from "./create-sync.js";
import { type SyncErrorCode, syncErrorCodes } from "./errors.js";
import { viewChange } from "./visibility.js";
import {
  type ClientFrame,
  clientFrameSchema,
  type ServerFrame,
  type SubscribeFrame,
  WS_CLOSE_CODES,
} from "./ws-frames.js";

interface Subscription {
  readonly id: string;
  readonly entity: string;
  readonly matches: (row: Row) => boolean;
  /** The snapshot's cursor; changes at or before it are never sent. Null while loading. */
  cursor: number | null;
  /** Changes published while the snapshot is read, with the resolver of their batch. */
  buffer: { changes: readonly LoggedChange[]; resolveExists: ExistsResolver }[];
  /** Deliveries run one after another, in log order. */
  chain: Promise<void>;
}

/** One authenticated socket and its subscriptions. */
export interface Connection {
  readonly socket: WebSocket;
  /** Set by the keepalive ping, cleared by the pong. */
  alive: boolean;
  /** Hands one published batch to every subscription on its entity. */
  deliver(changes: readonly LoggedChange[], resolveExists: ExistsResolver): void;
  /** The log was reset: every subscription gets `RESYNC_REQUIRED` and is dropped. */
  reset(): void;
}

/** What a connection needs from its hub. */
export interface ConnectionContext {
  readonly sync: Sync;
  /** Bytes that may wait in the socket's outgoing buffer before it is closed with 1013. */
  readonly maxQueue: number;
  readonly onError: (error: unknown) => void;
}

/**
 * The `where` filter of a subscription as a row predicate (equality; null
 * matches a missing optional field). Values were checked by the snapshot's
 * query; compares the JSON-ready row values the log carries.
 */
export function whereMatcher(where: SubscribeFrame["where"]): (row: Row) => boolean {
  const entries = Object.entries(where ?? {}).filter(([, value]) => value !== undefined);
  return (row) =>
    entries.every(([field, value]) =>
      value === null ? row[field] === null || row[field] === undefined : row[field] === value,
    );
}

function storeErrorCode(error: StoreError): SyncErrorCode | null {
  switch (error.code) {
    case "ENTITY_NOT_FOUND":
    case "POLICY_DENIED":
    case "INVALID_QUERY":
      return error.code;
    case "INVALID_CURSOR":
    case "INVALID_FIELD":
    case "INVALID_ID":
    case "UNKNOWN_FIELD":
      return "INVALID_QUERY";
    default:
      return null;
  }
}

/** Serves the frames of one authenticated socket. */
export function openConnection(
  socket: WebSocket,
  auth: AuthContext,
  context: ConnectionContext,
): Connection {
  const { sync, maxQueue, onError } = context;
  const subscriptions = new Map<string, Subscription>();
  let closing = false;

  const close = (code: number, reason: string): void => {
    if (closing) return;
    closing = true;
    subscriptions.clear();
    socket.close(code, reason);
  };

  const send = (frame: ServerFrame): void => {
    if (closing || socket.readyState !== socket.OPEN) return;
    const text = JSON.stringify(frame);
    if (socket.bufferedAmount + Buffer.byteLength(text) > maxQueue) {
      close(
        WS_CLOSE_CODES.TRY_AGAIN_LATER,
        "too far behind; reconnect and resume from your cursor",
      );
      return;
    }
    socket.send(text);
  };

  const sendError = (id: string | undefined, code: SyncErrorCode, message?: string): void => {
    send({
      type: "error",
      ...(id !== undefined && { id }),
      error: { code, message: message ?? syncErrorCodes[code].message },
    });
  };

  const active = (subscription: Subscription): boolean =>
    subscriptions.get(subscription.id) === subscription;

  const fail = (subscription: Subscription, error: unknown): void => {
    if (!active(subscription)) return;
    subscriptions.delete(subscription.id);
    const code = error instanceof StoreError ? storeErrorCode(error) : null;
    if (code === null) {
      onError(error);
      sendError(subscription.id, "INTERNAL_ERROR");
    } else {
      sendError(subscription.id, code, (error as StoreError).message);
    }
  };

  const deliverTo = async (
    subscription: Subscription,
    changes: readonly LoggedChange[],
    resolveExists: ExistsResolver,
  ): Promise<void> => {
    const viewer = {
      policies: sync.policies,
      auth,
      resolveExists,
      matches: subscription.matches,
    };
    for (const change of changes) {
      if (!active(subscription)) return;
      if (change.entity !== subscription.entity || change.cursor <= (subscription.cursor ?? 0)) {
        continue;
      }
      const view = await viewChange(viewer, change);
      if (view === null || !active(subscription)) continue;
      send({
        type: "change",
        id: subscription.id,
        op: view.op,
        ...(view.row !== undefined && { row: view.row }),
        rowId: view.rowId,
        cursor: view.cursor,
      });
    }
  };

  const enqueue = (
    subscription: Subscription,
    changes: readonly LoggedChange[],
    resolveExists: ExistsResolver,
  ): void => {
    subscription.chain = subscription.chain
      .then(() => deliverTo(subscription, changes, resolveExists))
      .catch((error: unknown) => fail(subscription, error));
  };

  const subscribe = async (frame: SubscribeFrame): Promise<void> => {
    if (subscriptions.has(frame.id)) {
      sendError(frame.id, "SUBSCRIPTION_EXISTS");
      return;
    }
    if (!sync.policies.entities.has(frame.entity)) {
      sendError(frame.id, "ENTITY_NOT_FOUND", `The entity ${frame.entity} does not exist.`);
      return;
    }
    const subscription: Subscription = {
      id: frame.id,
      entity: frame.entity,
      matches: whereMatcher(frame.where),
      cursor: null,
      buffer: [],
      chain: Promise.resolve(),
    };
    // Registered before the cursor is read: every change committed after
    // that read is buffered, none is lost between the snapshot and the stream.
    subscriptions.set(frame.id, subscription);
    try {
      const cursor = await sync.log.latestCursor();
      const page = await sync.store.reader(auth).query(frame.entity, {
        ...(frame.where !== undefined && { where: frame.where }),
        ...(frame.orderBy !== undefined && { orderBy: frame.orderBy }),
        ...(frame.limit !== undefined && { limit: frame.limit }),
      });
      if (!active(subscription)) return;
      send({ type: "snapshot", id: frame.id, rows: page.rows, cursor: String(cursor) });
      subscription.cursor = cursor;
      for (const batch of subscription.buffer) {
        enqueue(subscription, batch.changes, batch.resolveExists);
      }
      subscription.buffer = [];
    } catch (error) {
      fail(subscription, error);
    }
  };

  const handle = (frame: ClientFrame): void => {
    switch (frame.type) {
      case "ping":
        send({ type: "pong" });
        return;
      case "unsubscribe":
        subscriptions.delete(frame.id);
        return;
      case "subscribe":
        void subscribe(frame);
        return;
    }
  };

  socket.on("message", (data, isBinary) => {
    if (closing) return;
    if (isBinary) {
      close(WS_CLOSE_CODES.UNSUPPORTED_DATA, "frames must be JSON text");
      return;
    }
    let value: unknown;
    try {
      value = JSON.parse(String(data));
    } catch {
      close(WS_CLOSE_CODES.INVALID_PAYLOAD, "frames must be JSON text");
      return;
    }
    const parsed = clientFrameSchema.safeParse(value);
    if (!parsed.success) {
      const id = (value as { id?: unknown } | null)?.id;
      sendError(typeof id === "string" ? id : undefined, "INVALID_FRAME");
      return;
    }
    handle(parsed.data);
  });

  const connection: Connection = {
    socket,
    alive: true,
    deliver(changes, resolveExists) {
      for (const subscription of subscriptions.values()) {
        if (!changes.some((change) => change.entity === subscription.entity)) continue;
        if (subscription.cursor === null) subscription.buffer.push({ changes, resolveExists });
        else enqueue(subscription, changes, resolveExists);
      }
    },
    reset() {
      for (const subscription of [...subscriptions.values()]) {
        subscriptions.delete(subscription.id);
        sendError(subscription.id, "RESYNC_REQUIRED");
      }
    },
  };
  socket.on("pong", () => {
    connection.alive = true;
  });
  socket.on("close", () => {
    closing = true;
    subscriptions.clear();
  });
  return connection;
}
