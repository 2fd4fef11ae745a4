import { MAX_SHARD_DATA_BYTES, MAX_SHARD_DATA_DEPTH } from "@svc/schema/live-frames";
import { z } from "zod";

// The shard frames are defined once, in @svc/schema/live-frames, which the
// browser client shares (the modules here import them from there); what
// stays here is the server's own: the zod schema client frames are
// validated with (held to the shared `ShardClientFrame` by a test) and the
// transport's error codes.

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
