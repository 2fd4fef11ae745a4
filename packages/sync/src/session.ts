import type { ExistsResolver } from "@svc/policy-engine";
import { type AuthContext, isWireError } from "@svc/schema";
import { type Row, StoreError } from "@svc/store";
import type { LoggedChange } from "./change-log.js";
import type { Sync } from "./create-sync.js";
import { SyncError, type SyncErrorCode, syncErrorCodes } from "./errors.js";
import { changeFrameBytes, snapshotFrameText } from "./frame-text.js";
import type { LiveSubscriptionInfo } from "./live-callers.js";
import { type LiveQuery, openLiveQuery } from "./live-query.js";
import { readSnapshotRows, rowSizeHintsOf, snapshotTooLarge } from "./snapshot-read.js";
import { type PulledChange, viewChange, viewChangeNow } from "./visibility.js";
import type { ClientFrame, LiveQueryFrame, ServerFrame, SubscribeFrame } from "./ws-frames.js";

/** Open subscriptions (entities and live queries together) one connection may hold. */
export const MAX_SUBSCRIPTIONS = 256;

// Entries read per log page while a subscription with `since` catches up.
const CATCH_UP_PAGE = 500;

interface Subscription {
  readonly id: string;
  readonly entity: string;
  /** The filter as the client sent it (for listings). */
  readonly where: SubscribeFrame["where"];
  readonly matches: (row: Row) => boolean;
  /** Changes at or before this cursor are never sent. Null while the snapshot or catch-up loads. */
  cursor: number | null;
  /** Changes published while loading, with the resolver of their batch. */
  buffer: { changes: readonly LoggedChange[]; resolveExists: ExistsResolver }[];
  /** Deliveries run one after another, in log order. */
  chain: Promise<void>;
  /** Deliveries waiting on `chain`; while none, a lookup-free change is delivered at once. */
  pending: number;
  /** The id as JSON, for the frame text. */
  readonly idText: string;
  /** Who looks, through which filter (for lookup-free checks). */
  readonly viewer: {
    policies: Sync["policies"];
    auth: AuthContext;
    matches: (row: Row) => boolean;
  };
}

/** Where a session's frames go: a WebSocket, an event stream. */
export interface FrameSink {
  /**
   * Sends one frame; the transport applies its own backpressure bound.
   */
  send(frame: ServerFrame): void;
  /**
   * Sends one frame that carries a cursor (`change`, `snapshot`, `result`)
   * already written as UTF-8 JSON, exactly the bytes `send` would write for
   * it (a `change` is shared between subscribers: never modify it), with
   * that cursor (an event stream's event id).
   */
  sendChange(encoded: Buffer, cursor: number): void;
  /** Whether frames can still be sent (false once the transport closes). */
  readonly open: boolean;
}

/** One caller's subscriptions, independent of the transport that carries them. */
export interface Session {
  /** The caller, as last resolved (see `rebind`). */
  readonly auth: AuthContext;
  /** Acts on one parsed client frame. */
  handle(frame: ClientFrame): void;
  /** Answers a frame that failed validation with `INVALID_FRAME` (naming its id, when it had one). */
  invalidFrame(id: string | undefined): void;
  /** Hands one published batch to every subscription on a changed entity. */
  deliver(changes: readonly LoggedChange[], resolveExists: ExistsResolver): void;
  /** The log was reset: every subscription gets `RESYNC_REQUIRED` and is dropped. */
  reset(): void;
  /**
   * The caller's context changed (organization, roles, entitlements): from
   * now on the session reads as `auth`. Entity subscriptions get
   * `RESYNC_REQUIRED` and are dropped (the client subscribes again and gets
   * a snapshot of what it may now see); live queries run again as `auth`.
   */
  rebind(auth: AuthContext): void;
  /** Drops every subscription; later batches are ignored. */
  close(): void;
  /** The open subscriptions and live queries, for an operator's listing (`LiveCallers.list`). */
  subscriptions(): LiveSubscriptionInfo[];
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

function touches(changes: readonly LoggedChange[], entity: string): boolean {
  for (const change of changes) if (change.entity === entity) return true;
  return false;
}

/** The cursor a `since` names, or null when it is not one this API handed out. */
function parseSince(since: string): number | null {
  if (!/^(0|[1-9][0-9]{0,15})$/.test(since)) return null;
  const cursor = Number(since);
  return Number.isSafeInteger(cursor) ? cursor : null;
}

/**
 * Opens a session for `auth`: subscriptions answer with a snapshot (or,
 * with `since`, the missed changes from the log) and then every later
 * change the caller may see, filtered by the read policies and the
 * subscription's `where`.
 */
export function openSession(
  initialAuth: AuthContext,
  sync: Sync,
  sink: FrameSink,
  onError: (error: unknown) => void,
): Session {
  const subscriptions = new Map<string, Subscription>();
  const liveQueries = new Map<string, LiveQuery>();
  // The frames the live queries were opened with, to run them again after `rebind`.
  const queryFrames = new Map<string, LiveQueryFrame>();
  let auth = initialAuth;
  let closed = false;
  // Snapshots and live query runs of this connection, in turn with the others'.
  const loads = sync.loads.lane();

  const send = (frame: ServerFrame): void => {
    if (!closed && sink.open) sink.send(frame);
  };

  const sendChange = (
    subscription: Subscription,
    change: LoggedChange,
    op: PulledChange["op"],
  ): void => {
    if (!closed && sink.open) {
      sink.sendChange(changeFrameBytes(change, subscription.idText, op), change.cursor);
    }
  };

  /** Sends a frame with a cursor (a snapshot, a result) already written as UTF-8 JSON. */
  const sendEncoded = (encoded: Buffer, cursor: number): void => {
    if (!closed && sink.open) sink.sendChange(encoded, cursor);
  };

  const sendError = (id: string | undefined, code: string, message?: string): void => {
    send({
      type: "error",
      ...(id !== undefined && { id }),
      error: {
        code,
        message:
          message ?? (syncErrorCodes as Record<string, { message: string }>)[code]?.message ?? code,
      },
    });
  };

  const active = (subscription: Subscription): boolean =>
    subscriptions.get(subscription.id) === subscription;

  const fail = (subscription: Subscription, error: unknown): void => {
    if (!active(subscription)) return;
    subscriptions.delete(subscription.id);
    if (error instanceof SyncError) {
      // A SyncError's message is written for the client (a bound, a precise reason).
      sendError(subscription.id, error.code, error.message);
      return;
    }
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
    floor: number = subscription.cursor ?? 0,
  ): Promise<void> => {
    const viewer = { policies: sync.policies, auth, resolveExists, matches: subscription.matches };
    for (const change of changes) {
      if (!active(subscription)) return;
      if (change.entity !== subscription.entity || change.cursor <= floor) continue;
      const view = await viewChange(viewer, change);
      if (view === null || !active(subscription)) continue;
      sendChange(subscription, change, view.op);
    }
  };

  /** `deliverTo` without a promise: for entities whose read rules need no lookup. */
  const deliverNow = (subscription: Subscription, changes: readonly LoggedChange[]): void => {
    const viewer = subscription.viewer;
    const floor = subscription.cursor ?? 0;
    for (const change of changes) {
      if (!active(subscription)) return;
      if (change.entity !== subscription.entity || change.cursor <= floor) continue;
      const op = viewChangeNow(viewer, change);
      if (op !== null) sendChange(subscription, change, op);
    }
  };

  const enqueue = (
    subscription: Subscription,
    changes: readonly LoggedChange[],
    resolveExists: ExistsResolver,
  ): void => {
    // Nothing ahead of this batch: a lookup-free check runs at once (the
    // common fan-out case costs no promise per subscriber).
    if (subscription.pending === 0 && sync.policies.lookupFree?.has(subscription.entity)) {
      try {
        deliverNow(subscription, changes);
      } catch (error) {
        fail(subscription, error);
      }
      return;
    }
    subscription.pending += 1;
    const settle = (): void => {
      subscription.pending -= 1;
    };
    subscription.chain = subscription.chain
      .then(() => deliverTo(subscription, changes, resolveExists))
      .then(settle, (error: unknown) => {
        settle();
        fail(subscription, error);
      });
  };

  /** Streams the logged changes after `since` (for a resuming client); returns the last cursor read. */
  const catchUp = async (subscription: Subscription, since: number): Promise<number> => {
    const resolveExists = sync.existsResolver();
    let position = since;
    for (;;) {
      // Read first, then check the ends (as pulls do): entries pruned or
      // reset away before the read show as a raised \`oldest\` after it.
      const entries = await sync.log.read(position, CATCH_UP_PAGE);
      const { oldest, latest } = await sync.log.bounds();
      if (position > latest || (oldest !== null && position < oldest - 1)) {
        throw new SyncError("RESYNC_REQUIRED");
      }
      if (!active(subscription)) return position;
      const last = entries[entries.length - 1];
      if (last === undefined) return position;
      const changes: LoggedChange[] = [];
      for (const entry of entries) {
        if (entry.op === "reset") throw new SyncError("RESYNC_REQUIRED");
        changes.push(entry);
      }
      // Live batches stay buffered meanwhile (the cursor is still null).
      await deliverTo(subscription, changes, resolveExists, position);
      position = last.cursor;
    }
  };

  /** Reads the snapshot (see `readSnapshotRows`) and sends it as one frame, written once. */
  const loadSnapshot = async (
    frame: SubscribeFrame,
    subscription: Subscription,
  ): Promise<number> => {
    // Unsubscribed (or closed) while waiting for its turn: nothing to read.
    if (!active(subscription)) return 0;
    const cursor = await sync.log.latestCursor();
    const max = sync.limits.maxSnapshotBytes;
    const rowsText = await readSnapshotRows({
      reader: sync.store.reader(auth),
      frame,
      max,
      hints: rowSizeHintsOf(sync),
      active: () => active(subscription),
    });
    if (!active(subscription)) return cursor;
    const encoded = Buffer.from(snapshotFrameText(subscription.idText, rowsText, cursor));
    if (encoded.length > max) throw snapshotTooLarge(max);
    sendEncoded(encoded, cursor);
    return cursor;
  };

  const failQuery = (id: string, error: unknown): void => {
    if (liveQueries.get(id) === undefined) return;
    liveQueries.delete(id);
    queryFrames.delete(id);
    if (isWireError(error) && error.status < 500) {
      sendError(id, error.code, error.message);
      return;
    }
    // A failing function's 500 keeps its code (FUNCTION_FAILED); others are ours.
    if (!isWireError(error)) onError(error);
    sendError(
      id,
      isWireError(error) ? error.code : "INTERNAL_ERROR",
      isWireError(error) ? error.message : undefined,
    );
  };

  /** Refuses a subscription whose id is taken or past the connection's bound; true when refused. */
  const refused = (id: string): boolean => {
    if (subscriptions.has(id) || liveQueries.has(id)) {
      sendError(id, "SUBSCRIPTION_EXISTS");
      return true;
    }
    if (subscriptions.size + liveQueries.size >= MAX_SUBSCRIPTIONS) {
      sendError(id, "TOO_MANY_SUBSCRIPTIONS");
      return true;
    }
    return false;
  };

  const subscribeQuery = (frame: LiveQueryFrame): void => {
    if (refused(frame.id)) return;
    if (sync.queries === undefined) {
      sendError(frame.id, "LIVE_QUERIES_UNAVAILABLE");
      return;
    }
    queryFrames.set(frame.id, frame);
    liveQueries.set(
      frame.id,
      openLiveQuery(frame, { sync, auth, sendEncoded, loads, fail: failQuery }),
    );
  };

  const subscribe = async (frame: SubscribeFrame): Promise<void> => {
    if (refused(frame.id)) return;
    if (!sync.policies.entities.has(frame.entity)) {
      sendError(frame.id, "ENTITY_NOT_FOUND", `The entity ${frame.entity} does not exist.`);
      return;
    }
    const since = frame.since === undefined ? undefined : parseSince(frame.since);
    if (since === null) {
      sendError(frame.id, "INVALID_QUERY", "since must be a cursor this API returned.");
      return;
    }
    const matches = whereMatcher(frame.where);
    const subscription: Subscription = {
      id: frame.id,
      entity: frame.entity,
      where: frame.where,
      matches,
      viewer: { policies: sync.policies, auth, matches },
      cursor: null,
      buffer: [],
      chain: Promise.resolve(),
      pending: 0,
      idText: JSON.stringify(frame.id),
    };
    // Registered before the log is read: every change committed after that
    // read is buffered, none is lost between the snapshot and the stream.
    subscriptions.set(frame.id, subscription);
    try {
      const cursor =
        since === undefined
          ? await loads.run(() => loadSnapshot(frame, subscription))
          : await catchUp(subscription, since);
      if (!active(subscription)) return;
      subscription.cursor = cursor;
      for (const batch of subscription.buffer) {
        enqueue(subscription, batch.changes, batch.resolveExists);
      }
      subscription.buffer = [];
    } catch (error) {
      fail(subscription, error);
    }
  };

  return {
    get auth() {
      return auth;
    },
    handle(frame) {
      if (closed) return;
      switch (frame.type) {
        case "ping":
          send({ type: "pong" });
          return;
        case "unsubscribe":
          subscriptions.delete(frame.id);
          liveQueries.get(frame.id)?.close();
          liveQueries.delete(frame.id);
          queryFrames.delete(frame.id);
          return;
        case "subscribe":
          if ("query" in frame) subscribeQuery(frame);
          else void subscribe(frame);
          return;
      }
    },
    invalidFrame(id) {
      sendError(id, "INVALID_FRAME");
    },
    deliver(changes, resolveExists) {
      for (const query of liveQueries.values()) query.deliver(changes);
      for (const subscription of subscriptions.values()) {
        if (!touches(changes, subscription.entity)) continue;
        if (subscription.cursor === null) subscription.buffer.push({ changes, resolveExists });
        else enqueue(subscription, changes, resolveExists);
      }
    },
    reset() {
      for (const query of liveQueries.values()) query.reset();
      for (const subscription of [...subscriptions.values()]) {
        subscriptions.delete(subscription.id);
        sendError(subscription.id, "RESYNC_REQUIRED");
      }
    },
    rebind(next) {
      if (closed) return;
      auth = next;
      for (const subscription of [...subscriptions.values()]) {
        subscriptions.delete(subscription.id);
        sendError(
          subscription.id,
          "RESYNC_REQUIRED",
          "Your access changed; subscribe again for a snapshot of what you may see now.",
        );
      }
      for (const [id, query] of [...liveQueries]) {
        query.close();
        const frame = queryFrames.get(id);
        if (frame === undefined) continue;
        liveQueries.set(
          id,
          openLiveQuery(frame, { sync, auth, sendEncoded, loads, fail: failQuery }),
        );
      }
    },
    subscriptions() {
      return [
        ...[...subscriptions.values()].map(
          (subscription): LiveSubscriptionInfo => ({
            id: subscription.id,
            entity: subscription.entity,
            ...(subscription.where !== undefined && { where: subscription.where }),
          }),
        ),
        ...[...queryFrames.values()].map(
          (frame): LiveSubscriptionInfo => ({ id: frame.id, query: frame.query }),
        ),
      ];
    },
    close() {
      closed = true;
      subscriptions.clear();
      queryFrames.clear();
      for (const query of liveQueries.values()) query.close();
      liveQueries.clear();
    },
  };
}
