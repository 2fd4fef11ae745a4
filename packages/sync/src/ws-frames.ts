import type { Row } from "@svc/store";
import { z } from "zod";
import type { SyncErrorCode } from "./errors.js";

/** The largest text frame a client may send (64 KiB); a larger one closes the socket with 1009. */
export const MAX_CLIENT_FRAME_BYTES = 64 * 1024;

const subscriptionId = z.string().min(1).max(128);

const subscribeFrame = z.strictObject({
  type: z.literal("subscribe"),
  id: subscriptionId,
  entity: z.string().min(1).max(128),
  /** Equality filters, as the entity API takes them. */
  where: z.record(z.string(), z.unknown()).optional(),
  orderBy: z
    .strictObject({ field: z.string(), direction: z.enum(["asc", "desc"]).optional() })
    .optional(),
  /** Bounds the snapshot only (1..1000, default 100); live changes are not limited. */
  limit: z.number().int().min(1).max(1000).optional(),
  /**
   * Resume instead of loading a snapshot: the cursor of the last frame
   * applied. The server sends the changes logged after it (filtered as
   * live ones) and then live changes; `RESYNC_REQUIRED` when the log can
   * no longer serve it.
   */
  since: z.string().max(32).optional(),
});

const liveQueryFrame = z.strictObject({
  type: z.literal("subscribe"),
  id: subscriptionId,
  /** A query function's name. */
  query: z.string().min(1).max(100),
  /** Its arguments, validated by the function's declaration. */
  args: z.unknown().optional(),
});

/**
 * Every frame a client may send, as JSON text:
 *
 * - `{type: "subscribe", id, entity, where?, orderBy?, limit?, since?}`
 *   opens a subscription: a `snapshot` (or, with `since`, the changes
 *   missed since that cursor) then `change` frames with the same `id`.
 * - `{type: "subscribe", id, query, args?}` opens a live query: a `result`
 *   with the query function's value, then another whenever it changes.
 * - `{type: "unsubscribe", id}` closes it (no answer; unknown ids are ignored).
 * - `{type: "ping"}` is answered with `{type: "pong"}`.
 */
export const clientFrameSchema = z.union([
  subscribeFrame,
  liveQueryFrame,
  z.strictObject({ type: z.literal("unsubscribe"), id: subscriptionId }),
  z.strictObject({ type: z.literal("ping") }),
]);

/** A frame a client sends (see `clientFrameSchema`). */
export type ClientFrame = z.infer<typeof clientFrameSchema>;
/** `{type: "subscribe", id, entity, ...}`: opens an entity subscription. */
export type SubscribeFrame = z.infer<typeof subscribeFrame>;
/** `{type: "subscribe", id, query, args?}`: opens a live query. */
export type LiveQueryFrame = z.infer<typeof liveQueryFrame>;

/** The first answer to `subscribe`: the rows the caller may read now, and the cursor changes follow. */
export interface SnapshotFrame {
  readonly type: "snapshot";
  readonly id: string;
  readonly rows: Row[];
  /** The log's cursor taken before the rows were read (decimal string). */
  readonly cursor: string;
}

/**
 * One committed change the subscriber may see, after its snapshot's cursor.
 * `remove`: the row left this subscriber's view (its read policy or the
 * subscription's `where` no longer admits it); no row is sent. An update
 * that moves a row into view is an `update` with the row: apply as upserts.
 */
export interface ChangeFrame {
  readonly type: "change";
  readonly id: string;
  readonly op: "insert" | "update" | "delete" | "remove";
  /** The row after the change (insert, update). */
  readonly row?: Row;
  readonly rowId: string;
  /** The change's cursor (decimal string): resume a pull from it. */
  readonly cursor: string;
}

/**
 * A live query's value: sent first, then each time a committed change
 * makes it differ. `cursor` is the log's cursor before the run: every
 * change up to it is reflected.
 */
export interface ResultFrame {
  readonly type: "result";
  readonly id: string;
  readonly value: unknown;
  readonly cursor: string;
}

/**
 * A failure: with `id`, of that subscription (which is closed, except for
 * `SUBSCRIPTION_EXISTS` which leaves the open one in place); without, of a
 * frame that named none. `RESYNC_REQUIRED`: the log was reset, reload.
 */
export interface ErrorFrame {
  readonly type: "error";
  readonly id?: string;
  /** A `SyncErrorCode`, or a live query function's own code (`INVALID_ARGS`, ...). */
  readonly error: { readonly code: SyncErrorCode | (string & {}); readonly message: string };
}

/** The answer to `ping`. */
export interface PongFrame {
  readonly type: "pong";
}

/** Every frame the server sends, as JSON text. */
export type ServerFrame = SnapshotFrame | ChangeFrame | ResultFrame | ErrorFrame | PongFrame;

/**
 * WebSocket close codes the server uses: 1001 server going away, 1003 a
 * binary frame, 1007 text that is not JSON, 1008 no or an invalid caller
 * (also when the connection's credential is revoked or expires while it is
 * open: reason `credential revoked`), 1009 a frame over 64 KiB, 1011 an
 * unexpected failure, 1013 try again later: the consumer fell too far
 * behind (resume from the last cursor), the caller or its address holds
 * as many live connections as it may (reason `TOO_MANY_CONNECTIONS`), or
 * the server's operator closed the connection (reason `OPERATOR_CLOSE`).
 */
export const WS_CLOSE_CODES = {
  GOING_AWAY: 1001,
  UNSUPPORTED_DATA: 1003,
  INVALID_PAYLOAD: 1007,
  POLICY_VIOLATION: 1008,
  MESSAGE_TOO_BIG: 1009,
  INTERNAL_ERROR: 1011,
  TRY_AGAIN_LATER: 1013,
} as const;

/** The close reason (with 1013) of a socket an operator closed through `LiveCallers.disconnect`. */
export const OPERATOR_CLOSE = "closed by the server's operator";
