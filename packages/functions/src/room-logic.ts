import { type AuthContext, adminAuth, type RoomHandle, type RoomLogic } from "@svc/schema";
import type { Store } from "@svc/store";
import type { RoomContext, RoomDefinition } from "./define-room.js";
import { FunctionsError } from "./errors.js";
import { raiseError, readOnly, toClientError } from "./runner-helpers.js";

/**
 * Turns the room definitions of a registry (file name and definition) into
 * the `RoomLogic` the shard transport runs, by room kind: each handler gets
 * its context (`db` read-only with the member's rights, or the admin's for
 * `onTick`) and its errors are made client-safe (`FUNCTION_FAILED` unless
 * already a wire error). Throws `INVALID_FUNCTION` for a kind the manifest
 * does not declare or one defined by two files.
 */
export function createRoomLogic(
  store: Store,
  definitions: readonly (readonly [string, RoomDefinition])[],
): ReadonlyMap<string, RoomLogic> {
  const declared = new Set((store.manifest.rooms ?? []).map((room) => room.name));
  const files = new Map<string, string>();
  const rooms = new Map<string, RoomLogic>();
  for (const [name, definition] of definitions) {
    const kind = definition.room;
    if (!declared.has(kind)) {
      throw new FunctionsError("INVALID_FUNCTION", {
        message: `Room logic ${name} is for room kind ${kind}, which the manifest's rooms do not declare.`,
      });
    }
    const other = files.get(kind);
    if (other !== undefined) {
      throw new FunctionsError("INVALID_FUNCTION", {
        message: `${other} and ${name} both define the logic of room kind ${kind}; keep one.`,
      });
    }
    files.set(kind, name);
    rooms.set(kind, Object.freeze(wrapRoom(store, name, definition)));
  }
  return rooms;
}

function wrapRoom(store: Store, name: string, definition: RoomDefinition): RoomLogic {
  const contextFor = (room: RoomHandle, auth: AuthContext): RoomContext => ({
    auth,
    db: readOnly(store.reader(auth)),
    room,
    error: raiseError,
  });
  const guard = async (work: () => unknown): Promise<void> => {
    try {
      await work();
    } catch (error) {
      throw toClientError(error, name);
    }
  };
  const { onJoin, onLeave, onMessage, onTick } = definition;
  return {
    ...(definition.tickMs !== undefined && { tickMs: definition.tickMs }),
    ...(onJoin !== undefined && {
      onJoin: (room, member, auth) => guard(() => onJoin(contextFor(room, auth), { member })),
    }),
    ...(onLeave !== undefined && {
      onLeave: (room, member, auth) => guard(() => onLeave(contextFor(room, auth), { member })),
    }),
    ...(onMessage !== undefined && {
      onMessage: (room, message, auth) => guard(() => onMessage(contextFor(room, auth), message)),
    }),
    ...(onTick !== undefined && {
      onTick: (room, tick) => guard(() => onTick(contextFor(room, adminAuth), tick)),
    }),
  };
}
