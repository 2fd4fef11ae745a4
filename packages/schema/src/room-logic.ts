import type { AuthContext } from "./auth-context.js";

// The contract between room logic (@svc/functions) and the shard transport
// (@svc/sync): both import these types, neither imports the other.

/** One member of a room instance: a connection, the user behind it and its presence state. */
export interface RoomMember {
  /** Unique per connection (one user may join twice, from two tabs). */
  readonly connectionId: string;
  /** Null for the admin token. */
  readonly userId: string | null;
  /** The member's presence state (a JSON value, null until it sends one). */
  readonly presence: unknown;
}

/**
 * A room instance as room logic sees it: `/shard/<name>` (key null) or
 * `/shard/<name>/<key>`. Frames sent through it reach this instance's
 * members only.
 */
export interface RoomHandle {
  /** The room kind. */
  readonly name: string;
  /** The instance key, or null. */
  readonly key: string | null;
  /** The current members, in join order. */
  members(): readonly RoomMember[];
  /**
   * Sends `{type: "message", from: "server", data}` to every member (but
   * `options.except`, a connection id).
   */
  broadcast(data: unknown, options?: { readonly except?: string }): void;
  /** Sends `{type: "message", from: "server", data}` to one member; unknown ids are ignored. */
  send(connectionId: string, data: unknown): void;
  /**
   * A JSON value kept in memory for this instance (initially null),
   * dropped when the last member leaves. With several servers the
   * instance runs on one of them, so there is one `state`; it starts
   * again from null if that server dies and the room moves.
   */
  state: unknown;
}

/** A message a member sent to its room. */
export interface RoomMessage {
  readonly from: RoomMember;
  /** The message's JSON payload. */
  readonly data: unknown;
  /** The connection id the sender addressed, when it sent to one member. */
  readonly to?: string;
}

/** One tick of a room instance's timer. */
export interface RoomTick {
  /** 1 for the first tick after the room got its first member, then 2, 3, ... */
  readonly count: number;
  /** Unix ms of the tick. */
  readonly now: number;
}

/**
 * Server-side logic of one room kind, ready to run: what the function
 * runner's `rooms()` returns and the shard transport calls. Every handler
 * may reject; a rejection from `onJoin` refuses the join.
 */
export interface RoomLogic {
  /** Interval of `onTick`, when the manifest's room entry sets none. */
  readonly tickMs?: number;
  onJoin?(room: RoomHandle, member: RoomMember, auth: AuthContext): Promise<void>;
  onLeave?(room: RoomHandle, member: RoomMember, auth: AuthContext): Promise<void>;
  /** When set, decides what becomes of each message (relay, transform, drop). */
  onMessage?(room: RoomHandle, message: RoomMessage, auth: AuthContext): Promise<void>;
  onTick?(room: RoomHandle, tick: RoomTick): Promise<void>;
}
