import { isWireError } from "@svc/schema";
import { WS_CLOSE_CODES } from "../ws-frames.js";
import type { ClusterOutbox } from "./cluster-outbox.js";
import { logicErrorFrame, shardErrorFrame } from "./member.js";
import type { RelayMessage } from "./relay-wire.js";
import type { RoomInstance, RoomSeat } from "./room.js";

// A room this server runs (its home), as other servers' members see it:
// each of them is a seat whose frames go to its own server through the
// relay, and their servers' requests (join, leave, presence, message) are
// applied to the instance as its own members' are.

/** A room instance as messages between servers name it: kind and key. */
export type RoomRef = { readonly n: string; readonly k: string | null };

/** A member of a room this server runs, connected to another server. */
export interface RemoteSeat extends RoomSeat {
  readonly node: number;
  /** Left (or refused, or its server died): frames for it go nowhere. */
  gone: boolean;
}

/** A room this server runs. */
export interface Hosted {
  readonly ref: RoomRef;
  readonly instance: RoomInstance;
  readonly remote: Map<string, RemoteSeat>;
}

/** What the home side needs. */
export interface HomeContext {
  readonly outbox: ClusterOutbox;
  /** A frame longer than a member's outgoing bound closes it (1013) instead of crossing servers. */
  readonly maxQueue: number;
  /** This server's node id. */
  readonly self: () => number;
  /** Frame sizes, measured once per frame (a broadcast hands one frame to every seat). */
  readonly frameSizes: WeakMap<object, number>;
  readonly onError: (error: unknown) => void;
}

/** Removes a member of another server from a room (it left, or its server is gone). */
export function dropRemote(room: Hosted, connectionId: string): void {
  const seat = room.remote.get(connectionId);
  if (seat === undefined) return;
  seat.gone = true;
  room.remote.delete(connectionId);
  room.instance.leave(connectionId);
}

function nodeOf(context: HomeContext, room: Hosted, connectionId: string): number {
  return room.remote.get(connectionId)?.node ?? context.self();
}

function remoteSeat(
  context: HomeContext,
  room: Hosted,
  node: number,
  join: Extract<RelayMessage, { t: "join" }>,
): RemoteSeat {
  const { outbox, frameSizes } = context;
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
      if (size > context.maxQueue) {
        seat.close(WS_CLOSE_CODES.TRY_AGAIN_LATER, "too far behind; reconnect");
        return;
      }
      // Where each member named is, so a member's server knows who leaves with a dead home.
      const nodes =
        frame.type === "welcome"
          ? () => frame.members.map((member) => nodeOf(context, room, member.connectionId))
          : frame.type === "join"
            ? () => [nodeOf(context, room, frame.member.connectionId)]
            : undefined;
      outbox.deliver(node, room.ref, join.c, frame, nodes);
    },
    close(code, reason) {
      if (seat.gone) return;
      outbox.send(node, { t: "close", r: room.ref, c: join.c, code, reason });
    },
  };
  return seat;
}

/** Why a join was refused, as the member's server is told. */
function refusal(
  context: HomeContext,
  outcome: { full: true } | { unavailable: true } | { error: unknown },
): Extract<RelayMessage, { t: "refused" }>["why"] {
  if ("full" in outcome) return "full";
  if ("unavailable" in outcome) return "unavailable";
  if (isWireError(outcome.error)) {
    const { code, message, status } = outcome.error;
    return { code, message, status };
  }
  // Not for the member's eyes: reported here, a 1011 there.
  context.onError(outcome.error);
  return "failed";
}

/** What another server's member asks of a room this server runs. */
export function applyRemote(
  context: HomeContext,
  room: Hosted,
  from: number,
  message: RelayMessage,
): void {
  const { outbox } = context;
  if (message.t === "join") {
    // The same connection joining again (its server lost track): it replaces itself.
    dropRemote(room, message.c);
    const seat = remoteSeat(context, room, from, message);
    room.remote.set(message.c, seat);
    void room.instance
      .join(seat, () => !seat.gone)
      .then((outcome) => {
        if ("joined" in outcome) {
          if (!seat.gone) outbox.send(from, { t: "joined", r: room.ref, c: message.c });
          return;
        }
        if (room.remote.get(message.c) === seat) room.remote.delete(message.c);
        outbox.send(from, {
          t: "refused",
          r: room.ref,
          c: message.c,
          why: refusal(context, outcome),
        });
      });
    return;
  }
  if (message.t !== "leave" && message.t !== "presence" && message.t !== "message") return;
  const seat = room.remote.get(message.c);
  if (seat === undefined || seat.node !== from) return;
  if (message.t === "leave") {
    dropRemote(room, message.c);
  } else if (message.t === "presence") {
    room.instance.presence(message.c, message.d ?? null);
  } else {
    room.instance.message(message.c, message.d ?? null, message.to).then(
      (delivered) => {
        if (!delivered) seat.send(shardErrorFrame("MEMBER_NOT_FOUND"));
      },
      (error: unknown) => seat.send(logicErrorFrame(error, context.onError)),
    );
  }
}
