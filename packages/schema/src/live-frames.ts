// The live wire protocols of svc (`/ws` and `/events`, and the shards at
// `/shard/<kind>[/<key>]`): the frames a client sends, the frames a server
// sends, the close codes and bounds, and the readers of server frames. Server (@svc/sync) and client (@svc/client) both import
// this module, so the protocol is defined once.
//
// Why here, on its own subpath (`@svc/schema/live-frames`): the client runs
// in browsers and must not pull in anything Node-only. @svc/sync is a Node
// package (ws, kysely, the store); depending on it would install all of that
// with the client. @svc/schema is pure and already below @svc/sync, and this
// module imports nothing at all (no zod: the server validates client frames
// with its own zod schema, pinned to these types by a test), so a browser
// bundle gains only these few lines.

/** A row as the live transports send it: the id plus the entity's fields. */
export type LiveRow = { readonly id: string } & Readonly<Record<string, unknown>>;

/**
 * `{type: "subscribe", id, entity, where?, orderBy?, limit?, since?}`:
 * opens an entity subscription, answered by a `snapshot` (or, with
 * `since`, the changes missed since that cursor) then `change` frames with
 * the same `id`.
 */
export interface SubscribeFrame {
  readonly type: "subscribe";
  /** 1..128 characters, chosen by the client. */
  readonly id: string;
  readonly entity: string;
  /** Equality filters, as the entity API takes them. */
  readonly where?: Record<string, unknown>;
  readonly orderBy?: { readonly field: string; readonly direction?: "asc" | "desc" };
  /** Bounds the snapshot only (1..1000, default 100); live changes are not limited. */
  readonly limit?: number;
  /**
   * Resume instead of loading a snapshot: the cursor of the last frame
   * applied. The server sends the changes logged after it (filtered as
   * live ones) and then live changes; `RESYNC_REQUIRED` when the log can
   * no longer serve it.
   */
  readonly since?: string;
}

/** `{type: "subscribe", id, query, args?}`: opens a live query, answered by `result` frames. */
export interface LiveQueryFrame {
  readonly type: "subscribe";
  readonly id: string;
  /** A query function's name. */
  readonly query: string;
  /** Its arguments, validated by the function's declaration. */
  readonly args?: unknown;
}

/** `{type: "unsubscribe", id}`: closes a subscription (no answer; unknown ids are ignored). */
export interface UnsubscribeFrame {
  readonly type: "unsubscribe";
  readonly id: string;
}

/** `{type: "ping"}`: answered with `{type: "pong"}`. */
export interface PingFrame {
  readonly type: "ping";
}

/** Every frame a client may send, as JSON text. */
export type ClientFrame = SubscribeFrame | LiveQueryFrame | UnsubscribeFrame | PingFrame;

/** The first answer to `subscribe`: the rows the caller may read now, and the cursor changes follow. */
export interface SnapshotFrame {
  readonly type: "snapshot";
  readonly id: string;
  readonly rows: readonly LiveRow[];
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
  readonly row?: LiveRow;
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
 * `TCode` narrows the code where the sender knows its table.
 */
export interface ErrorFrame<TCode extends string = string> {
  readonly type: "error";
  readonly id?: string;
  readonly error: { readonly code: TCode; readonly message: string };
}

/** The answer to `ping`. */
export interface PongFrame {
  readonly type: "pong";
}

/** Every frame the server sends, as JSON text (on `/events`, as the data of `message` events). */
export type ServerFrame<TCode extends string = string> =
  | SnapshotFrame
  | ChangeFrame
  | ResultFrame
  | ErrorFrame<TCode>
  | PongFrame;

/** The code a subscription gets when its cursor can no longer be served: reload. */
export const RESYNC_REQUIRED = "RESYNC_REQUIRED";

/** The WebSocket subprotocol of these frames; a client offers it beside `bearer.<token>`. */
export const WS_PROTOCOL = "svc.v1";

/** The largest text frame a client may send (64 KiB); a larger one closes the socket with 1009. */
export const MAX_CLIENT_FRAME_BYTES = 64 * 1024;

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

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * The JSON object `text` holds, or null (not JSON, or not an object): where
 * every reader of frames starts before it checks the fields of one `type`.
 */
export function readFrameObject(text: string): Record<string, unknown> | null {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  return isRecord(value) ? value : null;
}

function isRow(value: unknown): value is LiveRow {
  return isRecord(value) && typeof value.id === "string";
}

const CHANGE_OPS: ReadonlySet<unknown> = new Set(["insert", "update", "delete", "remove"]);

/**
 * The server frame `text` holds, or null for anything that is not one
 * (not JSON, an unknown `type`, a field of the wrong kind). Readers of the
 * live transports check what arrives here instead of trusting it.
 *
 * @example
 * parseServerFrame('{"type":"pong"}'); // { type: "pong" }
 * parseServerFrame("{}"); // null
 */
export function parseServerFrame(text: string): ServerFrame | null {
  const value = readFrameObject(text);
  if (value === null) return null;
  const { type, id, cursor } = value;
  switch (type) {
    case "snapshot":
      return typeof id === "string" &&
        typeof cursor === "string" &&
        Array.isArray(value.rows) &&
        value.rows.every(isRow)
        ? (value as unknown as SnapshotFrame)
        : null;
    case "change":
      return typeof id === "string" &&
        typeof cursor === "string" &&
        typeof value.rowId === "string" &&
        CHANGE_OPS.has(value.op) &&
        (value.row === undefined || isRow(value.row))
        ? (value as unknown as ChangeFrame)
        : null;
    case "result":
      return typeof id === "string" && typeof cursor === "string" && "value" in value
        ? (value as unknown as ResultFrame)
        : null;
    case "error":
      return (id === undefined || typeof id === "string") &&
        isRecord(value.error) &&
        typeof value.error.code === "string"
        ? (value as unknown as ErrorFrame)
        : null;
    case "pong":
      return { type: "pong" };
    default:
      return null;
  }
}

// Shards (rooms): presence and messages among the members of one room
// instance, over their own WebSocket subprotocol.

/** The WebSocket subprotocol of shard frames; a client offers it beside `bearer.<token>`. */
export const SHARD_PROTOCOL = "svc.shard.v1";
/** The largest text frame a shard client may send (64 KiB); a larger one closes the socket with 1009. */
export const MAX_SHARD_FRAME_BYTES = 64 * 1024;
/** The largest `data` (presence or message) a client may send, as JSON: 32 KiB. */
export const MAX_SHARD_DATA_BYTES = 32 * 1024;
/** How deeply a frame's `data` may nest. */
export const MAX_SHARD_DATA_DEPTH = 32;

/**
 * Every frame a shard client may send, as JSON text:
 *
 * - `{type: "presence", data}` replaces the sender's presence state (any
 *   JSON value) and tells the other members.
 * - `{type: "message", data, to?}` sends `data` to the room's other members,
 *   or only to the member whose connection id is `to`; with room logic, its
 *   `onMessage` decides instead.
 * - `{type: "ping"}` is answered with `{type: "pong"}`.
 *
 * `data` must be present (null is a value) and at most
 * `MAX_SHARD_DATA_BYTES` of JSON nested at most `MAX_SHARD_DATA_DEPTH` deep.
 */
export type ShardClientFrame =
  | { readonly type: "presence"; readonly data: unknown }
  | { readonly type: "message"; readonly data: unknown; readonly to?: string }
  | { readonly type: "ping" };

/** A member as frames show it. */
export interface ShardMemberView {
  readonly connectionId: string;
  /** Null for the admin token. */
  readonly userId: string | null;
  /** The member's last presence `data`; null until it sends one. */
  readonly presence: unknown;
}

/**
 * The first frame after a successful join: who the client is, and every
 * member of the room instance in join order (itself included, last).
 */
export interface ShardWelcomeFrame {
  readonly type: "welcome";
  readonly self: { readonly connectionId: string; readonly userId: string | null };
  /** The room kind and instance key (null without one). */
  readonly room: { readonly name: string; readonly key: string | null };
  readonly members: readonly ShardMemberView[];
}

/** Another member joined (sent to the others, not to the one joining). */
export interface ShardJoinFrame {
  readonly type: "join";
  readonly member: ShardMemberView;
}

/** A member left (its socket closed). */
export interface ShardLeaveFrame {
  readonly type: "leave";
  readonly connectionId: string;
}

/** A member changed its presence state (sent to the others). */
export interface ShardPresenceFrame {
  readonly type: "presence";
  readonly connectionId: string;
  readonly data: unknown;
}

/** A message from a member (its connection id) or from the room logic (`"server"`). */
export interface ShardMessageFrame {
  readonly type: "message";
  readonly from: string;
  readonly data: unknown;
}

/**
 * A failure; the connection stays open except for a refused join (then the
 * close follows). Codes: the shard transport's own (`INVALID_FRAME`,
 * `DATA_TOO_LARGE`, `MEMBER_NOT_FOUND`, `INTERNAL_ERROR`), or the code of an
 * error the room logic raised (`ctx.error`).
 */
export interface ShardErrorFrame {
  readonly type: "error";
  readonly error: { readonly code: string; readonly message: string };
}

/** The answer to `ping`. */
export interface ShardPongFrame {
  readonly type: "pong";
}

/** Every frame the shard server sends, as JSON text. */
export type ShardServerFrame =
  | ShardWelcomeFrame
  | ShardJoinFrame
  | ShardLeaveFrame
  | ShardPresenceFrame
  | ShardMessageFrame
  | ShardErrorFrame
  | ShardPongFrame;
