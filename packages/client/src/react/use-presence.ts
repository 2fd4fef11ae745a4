import type { SvcError } from "../errors.js";
import type { RoomStatus } from "../rooms.js";
import type { RoomMember } from "../rooms-frames.js";
import { useRoom } from "./use-room.js";

/** What `usePresence` answers. */
export interface UsePresenceResult<TPresence = unknown> {
  /** Who is in the room, in join order, this connection included; empty until joined. */
  readonly members: readonly RoomMember<TPresence>[];
  /** This connection once joined, with the presence it set; null before. */
  readonly self: RoomMember<TPresence> | null;
  readonly status: RoomStatus;
  /** The last failure: `JOIN_DENIED`, `AUTH_REQUIRED`, `ROOM_FULL`, an `error` frame's code. */
  readonly error: SvcError | null;
  /** Replaces this connection's presence and tells the others; kept across rejoins. */
  setPresence(presence: TPresence): void;
}

/**
 * Who is in a room (`/shard/<kind>[/<key>]`) with their presence state,
 * re-rendering whenever someone joins, leaves or changes presence; shares
 * the connection of `useRoom` on the same room.
 *
 * @example
 * const { members, setPresence } = usePresence<{ name: string }>("channel", channelId);
 * useEffect(() => setPresence({ name }), [name, setPresence]);
 * return <ul>{members.map((m) => <li key={m.connectionId}>{m.presence?.name ?? "…"}</li>)}</ul>;
 */
export function usePresence<TPresence = unknown>(
  kind: string,
  key?: string | null,
): UsePresenceResult<TPresence> {
  const { members, self, status, error, setPresence } = useRoom<TPresence>(kind, key);
  return { members, self, status, error, setPresence };
}
