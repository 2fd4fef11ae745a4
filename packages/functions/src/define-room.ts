import type { AuthContext, RoomHandle, RoomMember, RoomTick } from "@svc/schema";
import type { EntityReader } from "@svc/store";
import type { BaseContext } from "./context.js";
import type { MaybePromise } from "./define-function.js";

/**
 * What every room handler's `ctx` has: the caller (`auth`: the member for
 * `onJoin`, `onLeave` and `onMessage`, the admin token for `onTick`), `db`,
 * a reader with that caller's rights, and `room`, the room instance.
 */
export interface RoomContext {
  readonly auth: AuthContext;
  /** Reads checked against `auth` (the admin token's rights in `onTick`). */
  readonly db: EntityReader;
  /** The room instance: members, broadcast, send and its in-memory `state`. */
  readonly room: RoomHandle;
  /** Stops the handler with an error the member sees (`onJoin`: refuses the join). */
  readonly error: BaseContext["error"];
}

/** What `room(kind, ...)` takes: any of the four handlers, and the tick rate. */
export interface RoomConfig {
  /**
   * Runs before a member joins (the others have not seen it yet); throwing,
   * or `ctx.error(...)`, refuses the join with that error.
   */
  onJoin?(ctx: RoomContext, input: { readonly member: RoomMember }): MaybePromise<void>;
  /** Runs after a member left (it is no longer in `ctx.room.members()`). */
  onLeave?(ctx: RoomContext, input: { readonly member: RoomMember }): MaybePromise<void>;
  /**
   * Receives every message a member sends instead of the default relay;
   * forward, transform or drop it with `ctx.room.broadcast` / `send`.
   */
  onMessage?(
    ctx: RoomContext,
    input: { readonly from: RoomMember; readonly data: unknown; readonly to?: string },
  ): MaybePromise<void>;
  /** Runs every `tickMs` while the room instance has members, with the admin's rights. */
  onTick?(ctx: RoomContext, tick: RoomTick): MaybePromise<void>;
  /** Interval of `onTick` in ms (10..3,600,000) when the manifest's room entry sets none; default 1000. */
  readonly tickMs?: number;
}

/** A room definition as a function file's default export; it is not callable over HTTP. */
export type RoomDefinition = RoomConfig & { readonly type: "room"; readonly room: string };

/**
 * Declares the server-side logic of the room kind `kind` (a `rooms` entry of
 * the manifest, joined at `/shard/<kind>[/<key>]`). Handlers run in the
 * server process that holds the room instance, one at a time per instance.
 *
 * @example
 * export default room("game", {
 *   tickMs: 100,
 *   onJoin: (ctx, { member }) => {
 *     if (ctx.room.members().length >= 4) ctx.error("ROOM_FULL", "The game is full.", 403);
 *   },
 *   onMessage: (ctx, { from, data }) => ctx.room.broadcast({ from: from.userId, move: data }),
 *   onTick: (ctx, { count }) => ctx.room.broadcast({ tick: count }),
 * });
 */
export function room(kind: string, config: RoomConfig): RoomDefinition {
  return Object.freeze({ ...config, type: "room" as const, room: kind });
}

/** The handler keys of a room definition. */
export const ROOM_HANDLERS = ["onJoin", "onLeave", "onMessage", "onTick"] as const;
