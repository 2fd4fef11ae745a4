import type { RoomDef } from "@svc/schema";
import type { ShardServerFrame } from "@svc/schema/live-frames";
import { WS_CLOSE_CODES } from "../ws-frames.js";
import type { ShardCluster } from "./cluster-api.js";
import {
  applyRemote,
  dropRemote,
  type HomeContext,
  type Hosted,
  type RoomRef,
} from "./cluster-home.js";
import { createClusterOutbox } from "./cluster-outbox.js";
import {
  departed,
  forward,
  type LocalEntry,
  type Op,
  outcomeOf,
  trackView,
  type Visit,
} from "./cluster-visit.js";
import { closeRefused, logicErrorFrame, shardErrorFrame } from "./member.js";
import type { RelayMessage } from "./relay-wire.js";
import type { JoinOutcome, RoomSeat } from "./room.js";
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

const every = (run: () => void, ms: number): (() => void) => {
  const timer = setInterval(run, ms);
  timer.unref();
  return () => clearInterval(timer);
};

/**
 * The room directory of a hub whose rooms are shared by every server on
 * one Postgres database (`attachShards({ cluster })`).
 */
export function createClusterRooms(options: ClusterRoomsOptions): RoomDirectory {
  const { relay, kinds, make, onError } = options;
  const outbox = createClusterOutbox(relay);
  const home: HomeContext = {
    outbox,
    maxQueue: options.maxQueue,
    self: () => relay.node ?? 0,
    frameSizes: new WeakMap(),
    onError,
  };
  const hosted = new Map<string, Hosted>();
  const visits = new Map<string, Visit>();
  const locals = new Map<string, Map<string, LocalEntry>>();
  const placing = new Map<string, Promise<Placement>>();
  // Messages from other servers for a room whose placement is running here.
  const waiting = new Map<string, [number, RelayMessage][]>();
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

  /** A message for the home of `message.r`: applied here, or answered with `moved`. */
  const atHome = (from: number, message: RelayMessage): void => {
    const id = idOf(message.r);
    const room = hosted.get(id);
    if (room !== undefined && !closing) {
      applyRemote(home, room, from, message);
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
        if (here !== undefined) applyRemote(home, here, sender, queuedMessage);
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
      for (const op of queue) forward(outbox, placement, visit.ref, op);
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
      forward(outbox, visit.home, visit.ref, op);
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
    // The home cannot tell them any more that its own members are gone.
    for (const connectionId of departed(visit, formerHome)) {
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
        trackView(visit, from, message);
        for (const connectionId of message.to) members?.get(connectionId)?.seat.send(message.f);
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
            if (!live.has(seat.node)) dropRemote(room, seat.connectionId);
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
        for (const seat of [...room.remote.values()]) dropRemote(room, seat.connectionId);
      }
      visits.clear();
      await Promise.all([...placing.values()]);
    },
  };
}
