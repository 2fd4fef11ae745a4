import type { RoomDef } from "@svc/schema";
import { isWireError } from "@svc/schema";
import { WS_CLOSE_CODES } from "../ws-frames.js";
import { createClusterOutbox } from "./cluster-outbox.js";
import type { ShardServerFrame } from "./frames.js";
import { closeRefused, logicErrorFrame, shardErrorFrame } from "./member.js";
import type { ShardCluster } from "./relay-pg.js";
import type { RelayMessage } from "./relay-wire.js";
import type { JoinOutcome, RoomInstance, RoomSeat } from "./room.js";
import { type InstanceFactory, type RoomDirectory, type RoomPort, roomId } from "./rooms.js";

// Rooms across servers. Each room instance runs on exactly one server, its
// home: the server holding the room's advisory lock (see relay-pg.ts). The
// home runs the room as one server always did (members, state, logic,
// ticks), with members on other servers as seats whose frames travel
// through the relay. A member's own server (which may be the home) only
// forwards: its join, presence and messages go to the home, and every
// frame its members get comes from the home, so all members see one order.
//
// When the home dies, its lock goes with its connection; the other
// servers notice on their next liveness check, tell their members that
// the home's members left, and join theirs again wherever the room is
// found next (usually the first of them to take the lock). The room
// starts again there: state null, ticks from 1, `onJoin` for each member,
// and each member gets a new `welcome`.

type RoomRef = { readonly n: string; readonly k: string | null };
type Placement = "here" | number | "unavailable";

/** Messages one room's members may have waiting while its home is being found. */
const MAX_WAITING = 4096;

/** Options of `createClusterRooms`. */
export interface ClusterRoomsOptions {
  readonly relay: ShardCluster;
  /** Room kinds by name (the manifest's `rooms`). */
  readonly kinds: ReadonlyMap<string, RoomDef>;
  readonly make: InstanceFactory;
  /** A frame longer than a member's outgoing bound closes it (1013) instead of crossing servers. */
  readonly maxQueue: number;
  readonly onError: (error: unknown) => void;
}

/** A member of a room this server runs, connected to another server. */
interface RemoteSeat extends RoomSeat {
  readonly node: number;
  gone: boolean;
}

/** A room this server runs. */
interface Hosted {
  readonly ref: RoomRef;
  readonly instance: RoomInstance;
  readonly remote: Map<string, RemoteSeat>;
}

/** A member connected to this server, wherever its room runs. */
interface LocalEntry {
  readonly seat: RoomSeat;
  readonly stillOpen: () => boolean;
  /** Joined once: a later join is a rejoin (the room moved). */
  joined: boolean;
  settle: (outcome: JoinOutcome) => void;
}

/** What this server's members asked of their room, while its home was unknown. */
type Op =
  | { readonly t: "join"; readonly entry: LocalEntry }
  | { readonly t: "leave"; readonly c: string }
  | { readonly t: "presence"; readonly c: string; readonly d: unknown }
  | { readonly t: "message"; readonly c: string; readonly d: unknown; readonly to?: string };

/** A room with members here whose home is another server (or not known yet: `home` null). */
interface Visit {
  readonly kind: RoomDef;
  readonly ref: RoomRef;
  home: number | null;
  /** Members the home told of, and their servers: who left with a dead home. */
  view: Map<string, number>;
  queue: Op[];
}

const every = (run: () => void, ms: number): (() => void) => {
  const timer = setInterval(run, ms);
  timer.unref();
  return () => clearInterval(timer);
};

function outcomeOf(why: Extract<RelayMessage, { t: "refused" }>["why"]): JoinOutcome {
  if (why === "full") return { full: true };
  if (why === "unavailable") return { unavailable: true };
  if (why === "failed") {
    return { error: new Error("room logic failed on the room's home server (see its log)") };
  }
  return { error: Object.assign(new Error(why.message), { ...why, expose: true as const }) };
}

/**
 * The room directory of a hub whose rooms are shared by every server on
 * one Postgres database (`attachShards({ cluster })`).
 */
export function createClusterRooms(options: ClusterRoomsOptions): RoomDirectory {
  const { relay, kinds, make, onError } = options;
  const outbox = createClusterOutbox(relay);
  const hosted = new Map<string, Hosted>();
  const visits = new Map<string, Visit>();
  const locals = new Map<string, Map<string, LocalEntry>>();
  const placing = new Map<string, Promise<Placement>>();
  // Messages from other servers for a room whose placement is running here.
  const waiting = new Map<string, [number, RelayMessage][]>();
  const frameSizes = new WeakMap<object, number>();
  let closing = false;

  const refOf = (kind: RoomDef, key: string | null): RoomRef => ({ n: kind.name, k: key });
  const idOf = (ref: RoomRef): string => roomId(ref.n, ref.k);

  const localsOf = (id: string): Map<string, LocalEntry> => {
    let members = locals.get(id);
    if (members === undefined) {
      members = new Map();
      locals.set(id, members);
    }
    return members;
  };

  /** Drops a visit whose members are all gone (and whose queue was handed on). */
  const tidy = (id: string): void => {
    if ((locals.get(id)?.size ?? 0) > 0) return;
    locals.delete(id);
    const visit = visits.get(id);
    if (visit !== undefined && visit.home !== null) visits.delete(id);
  };

  // --- this server as a room's home -------------------------------------

  const host = (kind: RoomDef, key: string | null): void => {
    const id = roomId(kind.name, key);
    const room: Hosted = {
      ref: refOf(kind, key),
      remote: new Map(),
      instance: make(kind, key, () => {
        // Once empty, the lock goes, so any server may run the room next.
        if (hosted.get(id) !== room) return;
        hosted.delete(id);
        relay.release(id);
      }),
    };
    hosted.set(id, room);
  };

  /** Where a room runs: here (this server took its lock), on another server, or nowhere reachable. */
  const place = (kind: RoomDef, key: string | null): Promise<Placement> => {
    const id = roomId(kind.name, key);
    let found = placing.get(id);
    if (found === undefined) {
      found = (async (): Promise<Placement> => {
        // The holder may let go between our attempt and our question.
        for (let attempt = 0; attempt < 10; attempt++) {
          if (hosted.has(id)) return "here";
          if (closing) return "unavailable";
          if (await relay.claim(id)) {
            host(kind, key);
            return "here";
          }
          const node = await relay.holder(id);
          if (node !== null && node !== relay.node) return node;
          await new Promise((resolve) => setTimeout(resolve, attempt * 5));
        }
        return "unavailable";
      })()
        .catch((error: unknown) => {
          onError(error);
          return "unavailable" as const;
        })
        .finally(() => placing.delete(id));
      placing.set(id, found);
    }
    return found;
  };

  const nodeOf = (room: Hosted, connectionId: string): number =>
    room.remote.get(connectionId)?.node ?? relay.node ?? 0;

  const remoteSeat = (
    room: Hosted,
    node: number,
    join: Extract<RelayMessage, { t: "join" }>,
  ): RemoteSeat => {
    const seat: RemoteSeat = {
      connectionId: join.c,
      userId: join.u,
      auth: join.a,
      presence: join.p ?? null,
      node,
      gone: false,
      send(frame) {
        if (seat.gone) return;
        let size = frameSizes.get(frame);
        if (size === undefined) {
          size = JSON.stringify(frame).length;
          frameSizes.set(frame, size);
        }
        // Its own server would close it for this frame anyway (1013).
        if (size > options.maxQueue) {
          seat.close(WS_CLOSE_CODES.TRY_AGAIN_LATER, "too far behind; reconnect");
          return;
        }
        const nodes =
          frame.type === "welcome"
            ? () => frame.members.map((member) => nodeOf(room, member.connectionId))
            : frame.type === "join"
              ? () => [nodeOf(room, frame.member.connectionId)]
              : undefined;
        outbox.deliver(node, room.ref, join.c, frame, nodes);
      },
      close(code, reason) {
        if (seat.gone) return;
        outbox.send(node, { t: "close", r: room.ref, c: join.c, code, reason });
      },
    };
    return seat;
  };

  /** What another server's member asks of a room this server runs. */
  const applyRemote = (room: Hosted, from: number, message: RelayMessage): void => {
    if (message.t === "join") {
      const previous = room.remote.get(message.c);
      if (previous !== undefined) {
        // The same connection joining again (its server lost track): it replaces itself.
        previous.gone = true;
        room.remote.delete(message.c);
        room.instance.leave(message.c);
      }
      const seat = remoteSeat(room, from, message);
      room.remote.set(message.c, seat);
      void room.instance
        .join(seat, () => !seat.gone)
        .then((outcome) => {
          if ("joined" in outcome) {
            if (!seat.gone) outbox.send(from, { t: "joined", r: room.ref, c: message.c });
            return;
          }
          if (room.remote.get(message.c) === seat) room.remote.delete(message.c);
          let why: Extract<RelayMessage, { t: "refused" }>["why"];
          if ("full" in outcome) why = "full";
          else if ("unavailable" in outcome) why = "unavailable";
          else if (isWireError(outcome.error)) {
            const { code, message: text, status } = outcome.error;
            why = { code, message: text, status };
          } else {
            onError(outcome.error);
            why = "failed";
          }
          outbox.send(from, { t: "refused", r: room.ref, c: message.c, why });
        });
      return;
    }
    if (message.t !== "leave" && message.t !== "presence" && message.t !== "message") return;
    const seat = room.remote.get(message.c);
    if (seat === undefined || seat.node !== from) return;
    if (message.t === "leave") {
      seat.gone = true;
      room.remote.delete(message.c);
      room.instance.leave(message.c);
    } else if (message.t === "presence") {
      room.instance.presence(message.c, message.d ?? null);
    } else {
      room.instance.message(message.c, message.d ?? null, message.to).then(
        (delivered) => {
          if (!delivered) seat.send(shardErrorFrame("MEMBER_NOT_FOUND"));
        },
        (error: unknown) => seat.send(logicErrorFrame(error, onError)),
      );
    }
  };

  /** A message for the home of `message.r`: applied here, or answered with `moved`. */
  const atHome = (from: number, message: RelayMessage): void => {
    const id = idOf(message.r);
    const room = hosted.get(id);
    if (room !== undefined && !closing) {
      applyRemote(room, from, message);
      return;
    }
    const queued = waiting.get(id);
    if (queued !== undefined) {
      if (queued.length < MAX_WAITING || message.t === "join" || message.t === "leave") {
        queued.push([from, message]);
      }
      return;
    }
    const kind = kinds.get(message.r.n);
    if (message.t !== "join" || kind === undefined || closing) {
      // A member this server does not have: its server should look again.
      if (message.t !== "leave") outbox.send(from, { t: "moved", r: message.r });
      return;
    }
    waiting.set(id, [[from, message]]);
    void place(kind, message.r.k).then((placement) => {
      const pending = waiting.get(id) ?? [];
      waiting.delete(id);
      const here = placement === "here" ? hosted.get(id) : undefined;
      const answered = new Set<number>();
      for (const [sender, queuedMessage] of pending) {
        if (here !== undefined) applyRemote(here, sender, queuedMessage);
        else if (!answered.has(sender)) {
          answered.add(sender);
          outbox.send(sender, { t: "moved", r: message.r });
        }
      }
      here?.instance.vacate();
    });
  };

  // --- this server's members, wherever their room runs -------------------

  const settleJoin = (id: string, entry: LocalEntry, outcome: JoinOutcome): void => {
    if ("joined" in outcome) {
      if (!entry.joined) {
        entry.joined = true;
        entry.settle(outcome);
      }
      return;
    }
    const members = locals.get(id);
    if (members?.get(entry.seat.connectionId) === entry) members.delete(entry.seat.connectionId);
    // A rejoin after the room moved is refused like a join, but the member has its welcome.
    if (entry.joined) closeRefused(entry.seat, outcome, onError);
    else entry.settle(outcome);
    tidy(id);
  };

  const seatOf = (id: string, connectionId: string): RoomSeat | undefined =>
    locals.get(id)?.get(connectionId)?.seat;

  /** Applies a member's request to the room running here. */
  const applyLocal = (id: string, room: Hosted, op: Op): void => {
    switch (op.t) {
      case "join":
        void room.instance
          .join(op.entry.seat, op.entry.stillOpen)
          .then((outcome) => settleJoin(id, op.entry, outcome));
        return;
      case "leave":
        room.instance.leave(op.c);
        return;
      case "presence":
        room.instance.presence(op.c, op.d);
        return;
      case "message":
        room.instance.message(op.c, op.d, op.to).then(
          (delivered) => {
            if (!delivered) seatOf(id, op.c)?.send(shardErrorFrame("MEMBER_NOT_FOUND"));
          },
          (error: unknown) => seatOf(id, op.c)?.send(logicErrorFrame(error, onError)),
        );
        return;
    }
  };

  /** Sends a member's request to its room's home on another server. */
  const forward = (node: number, ref: RoomRef, op: Op): void => {
    switch (op.t) {
      case "join": {
        const { seat } = op.entry;
        outbox.send(node, {
          t: "join",
          r: ref,
          c: seat.connectionId,
          u: seat.userId,
          a: seat.auth,
          p: seat.presence,
        });
        return;
      }
      case "leave":
        outbox.send(node, { t: "leave", r: ref, c: op.c });
        return;
      case "presence":
        outbox.send(node, { t: "presence", r: ref, c: op.c, d: op.d });
        return;
      case "message":
        outbox.send(node, {
          t: "message",
          r: ref,
          c: op.c,
          d: op.d,
          ...(op.to !== undefined && { to: op.to }),
        });
        return;
    }
  };

  /** Ends this server's members of a room that cannot be reached. */
  const abandon = (id: string): void => {
    const members = locals.get(id);
    locals.delete(id);
    visits.delete(id);
    for (const entry of members?.values() ?? []) {
      if (entry.joined) closeRefused(entry.seat, { unavailable: true }, onError);
      else entry.settle({ unavailable: true });
    }
  };

  /** Finds a visit's home, then hands it what waited. */
  const find = (id: string, visit: Visit): void => {
    void place(visit.kind, visit.ref.k).then((placement) => {
      if (visits.get(id) !== visit) return;
      const queue = visit.queue;
      visit.queue = [];
      if (placement === "unavailable") {
        abandon(id);
        return;
      }
      if (placement === "here") {
        const room = hosted.get(id);
        visits.delete(id);
        if (room === undefined) {
          abandon(id);
          return;
        }
        for (const op of queue) applyLocal(id, room, op);
        room.instance.vacate();
        tidy(id);
        return;
      }
      visit.home = placement;
      for (const op of queue) forward(placement, visit.ref, op);
      tidy(id);
    });
  };

  /** Routes a member's request: to the room here, to its home, or into the wait for its home. */
  const route = (kind: RoomDef, key: string | null, op: Op): void => {
    const id = roomId(kind.name, key);
    const room = hosted.get(id);
    if (room !== undefined) {
      applyLocal(id, room, op);
      return;
    }
    let visit = visits.get(id);
    if (visit === undefined) {
      if (op.t !== "join") return;
      visit = { kind, ref: refOf(kind, key), home: null, view: new Map(), queue: [] };
      visits.set(id, visit);
      visit.queue.push(op);
      find(id, visit);
      return;
    }
    if (visit.home !== null) {
      forward(visit.home, visit.ref, op);
      return;
    }
    if (visit.queue.length >= MAX_WAITING && (op.t === "presence" || op.t === "message")) {
      seatOf(id, op.c)?.close(WS_CLOSE_CODES.TRY_AGAIN_LATER, "too far behind; reconnect");
      return;
    }
    visit.queue.push(op);
  };

  /**
   * The room's home is gone (dead, or it gave the room up): its members
   * leave, and this server's members join wherever the room is next.
   */
  const relocate = (id: string, visit: Visit, formerHome: number): void => {
    if (visit.home !== formerHome) return;
    visit.home = null;
    const members = [...(locals.get(id)?.values() ?? [])];
    for (const [connectionId, node] of visit.view) {
      if (node !== formerHome) continue;
      visit.view.delete(connectionId);
      const frame: ShardServerFrame = { type: "leave", connectionId };
      for (const entry of members) if (entry.joined) entry.seat.send(frame);
    }
    visit.queue = [...members.map((entry): Op => ({ t: "join", entry })), ...visit.queue];
    if (visit.queue.length === 0) {
      visits.delete(id);
      return;
    }
    find(id, visit);
  };

  /** A message from the home of a room this server has members in. */
  const atVisit = (from: number, message: RelayMessage): void => {
    const id = idOf(message.r);
    const visit = visits.get(id);
    // Anything from a server that is no longer this room's home is stale.
    if (visit === undefined || visit.home !== from) return;
    const members = locals.get(id);
    switch (message.t) {
      case "deliver": {
        const frame = message.f;
        if (frame.type === "welcome") {
          visit.view = new Map(
            frame.members.map((member, index) => [
              member.connectionId,
              message.nodes?.[index] ?? from,
            ]),
          );
        } else if (frame.type === "join") {
          visit.view.set(frame.member.connectionId, message.nodes?.[0] ?? from);
        } else if (frame.type === "leave") {
          visit.view.delete(frame.connectionId);
        }
        for (const connectionId of message.to) members?.get(connectionId)?.seat.send(frame);
        return;
      }
      case "joined": {
        const entry = members?.get(message.c);
        if (entry !== undefined) settleJoin(id, entry, { joined: true });
        return;
      }
      case "refused": {
        const entry = members?.get(message.c);
        if (entry !== undefined) settleJoin(id, entry, outcomeOf(message.why));
        return;
      }
      case "close":
        members?.get(message.c)?.seat.close(message.code, message.reason);
        return;
      case "moved":
        relocate(id, visit, from);
        return;
      default:
        return;
    }
  };

  // --- servers that die, a relay that is lost ---------------------------

  let checking = false;
  const check = (): void => {
    const remoteSeats = [...hosted.values()].some((room) => room.remote.size > 0);
    if (checking || closing || (visits.size === 0 && !remoteSeats)) return;
    checking = true;
    relay
      .liveNodes()
      .then((live) => {
        for (const [id, visit] of [...visits]) {
          if (visit.home !== null && !live.has(visit.home)) relocate(id, visit, visit.home);
        }
        for (const room of [...hosted.values()]) {
          for (const seat of [...room.remote.values()]) {
            if (live.has(seat.node)) continue;
            seat.gone = true;
            room.remote.delete(seat.connectionId);
            room.instance.leave(seat.connectionId);
          }
        }
      }, onError)
      .finally(() => {
        checking = false;
      });
  };
  const stopChecks = every(check, relay.checkMs);

  relay.listen({
    message(from, message) {
      switch (message.t) {
        case "join":
        case "leave":
        case "presence":
        case "message":
          atHome(from, message);
          return;
        default:
          atVisit(from, message);
      }
    },
    lost() {
      // Every lock went with the connection, and messages may be lost:
      // this server's part in every room ends; its members reconnect.
      outbox.clear();
      waiting.clear();
      visits.clear();
      for (const room of [...hosted.values()]) {
        for (const member of room.instance.handle.members()) {
          room.instance.leave(member.connectionId);
        }
      }
      hosted.clear();
      const members = [...locals.values()].flatMap((room) => [...room.values()]);
      locals.clear();
      for (const entry of members) {
        if (entry.joined)
          entry.seat.close(WS_CLOSE_CODES.TRY_AGAIN_LATER, "room relay lost; reconnect");
        else entry.settle({ unavailable: true });
      }
    },
  });

  return {
    port(kind, key) {
      const id = roomId(kind.name, key);
      return {
        join(seat, stillOpen) {
          return new Promise<JoinOutcome>((settle) => {
            const entry: LocalEntry = { seat, stillOpen, joined: false, settle };
            if (closing || relay.node === null) {
              settle({ unavailable: true });
              return;
            }
            localsOf(id).set(seat.connectionId, entry);
            route(kind, key, { t: "join", entry });
          });
        },
        leave(connectionId) {
          const members = locals.get(id);
          const entry = members?.get(connectionId);
          if (entry === undefined) return;
          members?.delete(connectionId);
          // A join still on its way: the member sees its socket closed and stops there.
          if (!entry.joined) entry.settle({ joined: true });
          route(kind, key, { t: "leave", c: connectionId });
          tidy(id);
        },
        presence(connectionId, data) {
          const entry = locals.get(id)?.get(connectionId);
          if (entry === undefined) return;
          // Kept here too: a rejoin after the room moved carries it.
          entry.seat.presence = data;
          route(kind, key, { t: "presence", c: connectionId, d: data });
        },
        message(connectionId, data, to) {
          if (locals.get(id)?.get(connectionId) === undefined) return Promise.resolve(true);
          const room = hosted.get(id);
          if (room !== undefined) return room.instance.message(connectionId, data, to);
          route(kind, key, {
            t: "message",
            c: connectionId,
            d: data,
            ...(to !== undefined && { to }),
          });
          return Promise.resolve(true);
        },
      } satisfies RoomPort;
    },
    get rooms() {
      let count = hosted.size;
      for (const id of visits.keys()) if (!hosted.has(id)) count += 1;
      return count;
    },
    members(name, key) {
      const id = roomId(name, key);
      const room = hosted.get(id);
      if (room !== undefined) return room.instance.size;
      const visit = visits.get(id);
      return visit === undefined ? 0 : Math.max(visit.view.size, locals.get(id)?.size ?? 0);
    },
    async close() {
      closing = true;
      stopChecks();
      // Every member here has left (the hub closed their sockets). Rooms
      // with members elsewhere are handed over: the lock goes first, then
      // their servers hear `moved` and find the room again.
      for (const [id, room] of [...hosted]) {
        hosted.delete(id);
        relay.release(id);
        const nodes = new Set([...room.remote.values()].map((seat) => seat.node));
        for (const node of nodes) outbox.send(node, { t: "moved", r: room.ref });
        for (const seat of [...room.remote.values()]) {
          seat.gone = true;
          room.instance.leave(seat.connectionId);
        }
        room.remote.clear();
      }
      visits.clear();
      await Promise.all([...placing.values()]);
    },
  };
}
