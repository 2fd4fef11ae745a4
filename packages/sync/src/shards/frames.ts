import { z } from "zod";

/** The largest text frame a shard client may send (64 KiB); a larger one closes the socket with 1009. */
export const MAX_SHARD_FRAME_BYTES = 64 * 1024;
/** The largest `data` (presence or message) a client may send, as JSON: 32 KiB. */
export const MAX_SHARD_DATA_BYTES = 32 * 1024;
/** How deeply a frame's `data` may nest. */
export const MAX_SHARD_DATA_DEPTH = 32;

/** A connection id as the server hands them out (and as `to` names one). */
const connectionId = z.string().min(1).max(64);

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
export const shardClientFrameSchema = z.discriminatedUnion("type", [
  z.strictObject({ type: z.literal("presence"), data: z.unknown() }),
  z.strictObject({ type: z.literal("message"), data: z.unknown(), to: connectionId.optional() }),
  z.strictObject({ type: z.literal("ping") }),
]);

/** A frame a shard client sends (see `shardClientFrameSchema`). */
export type ShardClientFrame = z.infer<typeof shardClientFrameSchema>;

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
 * close follows). Codes: `shardErrorCodes`, or the code of an error the
 * room logic raised (`ctx.error`).
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

/**
 * Every failure the shard transport reports in an `error` frame, by stable
 * code. Join refusals are close reasons instead (see the README's table).
 */
export const shardErrorCodes = {
  INVALID_FRAME: {
    message:
      "The frame is not a valid shard frame (presence, message or ping; see @svc/sync's shard frame types).",
  },
  DATA_TOO_LARGE: {
    message: `A frame's data may hold at most ${MAX_SHARD_DATA_BYTES} bytes of JSON nested ${MAX_SHARD_DATA_DEPTH} deep.`,
  },
  MEMBER_NOT_FOUND: { message: "No member of this room has that connection id." },
  INTERNAL_ERROR: { message: "Something went wrong on the server." },
} as const satisfies Record<string, { message: string }>;

/** A stable code of `shardErrorCodes`. */
export type ShardErrorCode = keyof typeof shardErrorCodes;
