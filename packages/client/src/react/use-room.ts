import { type RefObject, useEffect, useMemo, useRef, useSyncExternalStore } from "react";
import type { SvcClient } from "../create-client.js";
import type { Room, RoomMessage, RoomSendOptions, RoomState } from "../rooms.js";
import type { AnyApi } from "../types.js";
import { useSvcClient } from "./provider.js";

/** What `useRoom` answers: the room's state plus what a component does in it. */
export interface UseRoomResult<TPresence = unknown, TMessage = unknown>
  extends RoomState<TPresence> {
  /** `room.setPresence`: replaces this connection's presence (kept across rejoins). */
  setPresence(presence: TPresence): void;
  /** `room.send`: a message to every other member, or to `options.to` only. */
  send(data: TMessage, options?: RoomSendOptions): void;
}

/** Options of `useRoom`. */
export interface UseRoomOptions<TMessage = unknown> {
  /** Receives every message; the latest function given is called (no resubscribe). */
  readonly onMessage?: (message: RoomMessage<TMessage>) => void;
}

interface SharedRoom {
  readonly room: Room<unknown, unknown>;
  refs: number;
}

// Every hook on the same room of one client shares one connection, so a
// component showing who is online and another showing messages are one
// member, not two.
const shared = new WeakMap<SvcClient<AnyApi>, Map<string, SharedRoom>>();

const roomId = (kind: string, key: string | null): string => `${kind}\u0000${key ?? ""}`;

function acquire(client: SvcClient<AnyApi>, kind: string, key: string | null): SharedRoom {
  let rooms = shared.get(client);
  if (rooms === undefined) {
    rooms = new Map();
    shared.set(client, rooms);
  }
  const id = roomId(kind, key);
  let entry = rooms.get(id);
  if (entry === undefined) {
    entry = { room: client.room(kind, key), refs: 0 };
    rooms.set(id, entry);
  }
  entry.refs += 1;
  return entry;
}

function release(client: SvcClient<AnyApi>, kind: string, key: string | null, entry: SharedRoom) {
  entry.refs -= 1;
  // Closed a microtask later, so StrictMode's unmount-and-mount-again keeps the connection.
  queueMicrotask(() => {
    if (entry.refs > 0) return;
    const rooms = shared.get(client);
    if (rooms?.get(roomId(kind, key)) === entry) rooms.delete(roomId(kind, key));
    entry.room.close();
  });
}

const IDLE: RoomState<never> = { status: "connecting", self: null, members: [], error: null };

function roomStore<TPresence, TMessage>(
  client: SvcClient<AnyApi>,
  kind: string,
  key: string | null,
  onMessage: RefObject<((message: RoomMessage<TMessage>) => void) | undefined>,
) {
  let entry: SharedRoom | null = null;
  // Presence set before the room is joined by this hook (an effect of an earlier hook).
  let pending: { value: TPresence } | null = null;
  const room = () => entry?.room as Room<TPresence, TMessage> | undefined;
  return {
    getSnapshot: (): RoomState<TPresence> => room()?.state ?? IDLE,
    getServerSnapshot: (): RoomState<TPresence> => IDLE,
    subscribe(notify: () => void): () => void {
      const current = acquire(client, kind, key);
      entry = current;
      const typed = current.room as Room<TPresence, TMessage>;
      if (pending !== null) typed.setPresence(pending.value);
      pending = null;
      const stopState = typed.subscribe(notify);
      const stopMessages = typed.onMessage((message) => onMessage.current?.(message));
      return () => {
        stopState();
        stopMessages();
        entry = null;
        release(client, kind, key, current);
      };
    },
    setPresence(presence: TPresence): void {
      const open = room();
      if (open === undefined) pending = { value: presence };
      else open.setPresence(presence);
    },
    send(data: TMessage, options?: RoomSendOptions): void {
      const open = room();
      if (open === undefined) {
        throw new Error("useRoom: send() was called before the component mounted.");
      }
      open.send(data, options);
    },
  };
}

/**
 * A realtime room (`client.room`) under `useSyncExternalStore`: its
 * status, members with their presence and last error, re-rendering on
 * every change, plus `setPresence` and `send`. Hooks on the same kind and
 * key of one client share one connection, joined on mount and left after
 * the last unmounts.
 *
 * @example
 * const { members, send } = useRoom<{ name: string }, string>("chat", channelId, {
 *   onMessage: ({ userId, data }) => console.log(userId, data),
 * });
 */
export function useRoom<TPresence = unknown, TMessage = unknown>(
  kind: string,
  key?: string | null,
  options: UseRoomOptions<TMessage> = {},
): UseRoomResult<TPresence, TMessage> {
  const client = useSvcClient();
  const onMessage = useRef(options.onMessage);
  useEffect(() => {
    onMessage.current = options.onMessage;
  });
  const instance = key ?? null;
  const store = useMemo(
    () => roomStore<TPresence, TMessage>(client, kind, instance, onMessage),
    [client, kind, instance],
  );
  const state = useSyncExternalStore(store.subscribe, store.getSnapshot, store.getServerSnapshot);
  return { ...state, setPresence: store.setPresence, send: store.send };
}
