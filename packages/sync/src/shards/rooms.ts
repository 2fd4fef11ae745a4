import type { RoomDef } from "@svc/schema";
import type { JoinOutcome, RoomInstance, RoomSeat } from "./room.js";

// Where a room instance runs. One process: here, in memory (this file).
// Several servers on one Postgres: on one of them, its home (cluster.ts).
// A member's socket talks to a `RoomPort` and cannot tell the two apart.

/** What a member's socket asks of its room instance (see `RoomInstance` for the meaning). */
export interface RoomPort {
  join(seat: RoomSeat, stillOpen: () => boolean): Promise<JoinOutcome>;
  leave(connectionId: string): void;
  presence(connectionId: string, data: unknown): void;
  /**
   * Resolves false when `to` names no member; rejects with the room
   * logic's error. When the room runs on another server its outcome comes
   * back to the member as an `error` frame instead, and this resolves true.
   */
  message(connectionId: string, data: unknown, to: string | undefined): Promise<boolean>;
}

/** Makes a room instance that calls `onEmpty` once it has no members and no joins in flight. */
export type InstanceFactory = (
  kind: RoomDef,
  key: string | null,
  onEmpty: () => void,
) => RoomInstance;

/** The room instances a hub serves. */
export interface RoomDirectory {
  /** The instance `/shard/<kind.name>/<key>`, created on the first join. */
  port(kind: RoomDef, key: string | null): RoomPort;
  /** Room instances with members (or joins in flight) that this server knows of. */
  readonly rooms: number;
  /** Members of one instance (0 when it does not exist). */
  members(name: string, key: string | null): number;
  /** After every member left: hands rooms this server runs over to others. */
  close(): Promise<void>;
}

/** The map key of a room instance. */
export const roomId = (name: string, key: string | null): string => `${name}\u0000${key ?? ""}`;

/** Room instances in this process only (no cluster, or SQLite): today's single-server rooms. */
export function createLocalRooms(make: InstanceFactory): RoomDirectory {
  const instances = new Map<string, RoomInstance>();
  const instanceOf = (kind: RoomDef, key: string | null): RoomInstance => {
    const id = roomId(kind.name, key);
    let instance = instances.get(id);
    if (instance === undefined) {
      const created = make(kind, key, () => {
        if (instances.get(id) === created) instances.delete(id);
      });
      instance = created;
      instances.set(id, instance);
    }
    return instance;
  };
  return {
    port(kind, key) {
      // Resolved per call: an instance dropped when it emptied is made again.
      return {
        join: (seat, stillOpen) => instanceOf(kind, key).join(seat, stillOpen),
        leave: (connectionId) => instances.get(roomId(kind.name, key))?.leave(connectionId),
        presence: (connectionId, data) =>
          instances.get(roomId(kind.name, key))?.presence(connectionId, data),
        message: (connectionId, data, to) =>
          instances.get(roomId(kind.name, key))?.message(connectionId, data, to) ??
          Promise.resolve(true),
      };
    },
    get rooms() {
      return instances.size;
    },
    members(name, key) {
      return instances.get(roomId(name, key))?.size ?? 0;
    },
    async close() {},
  };
}
