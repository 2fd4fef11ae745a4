import type { ServerFrame as SharedServerFrame } from "@svc/schema/live-frames";
import { z } from "zod";
import type { SyncErrorCode } from "./errors.js";

// The live wire protocol is defined once, in @svc/schema/live-frames, which
// the browser client shares (see that module for why it lives there). What
// stays here is the server's own: the zod schema it validates client frames
// with, held to the shared types by a test (test/ws-frames.test.ts).

export {
  type ChangeFrame,
  type ErrorFrame,
  MAX_CLIENT_FRAME_BYTES,
  OPERATOR_CLOSE,
  type PongFrame,
  type ResultFrame,
  type SnapshotFrame,
  WS_CLOSE_CODES,
} from "@svc/schema/live-frames";

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

/** Every frame the server sends, as JSON text (the shared `ServerFrame`, with sync's codes named). */
export type ServerFrame = SharedServerFrame<SyncErrorCode | (string & {})>;
