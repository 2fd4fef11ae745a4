import type { RoomDef } from "@svc/schema";
import type { RoomRef } from "./cluster-home.js";
import type { ClusterOutbox } from "./cluster-outbox.js";
import type { RelayMessage } from "./relay-wire.js";
import type { JoinOutcome, RoomSeat } from "./room.js";

// A room with members on this server that runs on another (its home), as
// this server sees it: its members' requests go to the home, the home's
// frames come back for them, and this server keeps who the home said is
// in the room, and on which server, for the day the home dies.

/** A member connected to this server, wherever its room runs. */
export interface LocalEntry {
  readonly seat: RoomSeat;
  readonly stillOpen: () => boolean;
  /** Joined once: a later join is a rejoin (the room moved). */
  joined: boolean;
  settle: (outcome: JoinOutcome) => void;
}

/** A member's request of its room (queued while the room's home is being found). */
export type Op =
  | { readonly t: "join"; readonly entry: LocalEntry }
  | { readonly t: "leave"; readonly c: string }
  | { readonly t: "presence"; readonly c: string; readonly d: unknown }
  | { readonly t: "message"; readonly c: string; readonly d: unknown; readonly to?: string };

/** A room with members here whose home is another server (or not known yet: `home` null). */
export interface Visit {
  readonly kind: RoomDef;
  readonly ref: RoomRef;
  home: number | null;
  /** Members the home told of, and their servers: who left with a dead home. */
  view: Map<string, number>;
  queue: Op[];
}

/** A join's outcome as the home reported it. */
export function outcomeOf(why: Extract<RelayMessage, { t: "refused" }>["why"]): JoinOutcome {
  if (why === "full") return { full: true };
  if (why === "unavailable") return { unavailable: true };
  if (why === "failed") {
    return { error: new Error("room logic failed on the room's home server (see its log)") };
  }
  return { error: Object.assign(new Error(why.message), { ...why, expose: true as const }) };
}

/** Sends a member's request to its room's home on another server. */
export function forward(outbox: ClusterOutbox, node: number, ref: RoomRef, op: Op): void {
  switch (op.t) {
    case "join": {
      const { seat } = op.entry;
      // Presence too: after the room moved, a member keeps what it had set.
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
}

/**
 * Keeps the visit's view of who is in the room from a frame the home
 * delivered: a `welcome` lists everyone (with their servers in `nodes`), a
 * `join` adds one, a `leave` removes one. Every such frame about a member
 * of another server reaches this server while it has a member in the room.
 */
export function trackView(
  visit: Visit,
  from: number,
  message: Extract<RelayMessage, { t: "deliver" }>,
): void {
  const frame = message.f;
  if (frame.type === "welcome") {
    visit.view = new Map(
      frame.members.map((member, index) => [member.connectionId, message.nodes?.[index] ?? from]),
    );
  } else if (frame.type === "join") {
    visit.view.set(frame.member.connectionId, message.nodes?.[0] ?? from);
  } else if (frame.type === "leave") {
    visit.view.delete(frame.connectionId);
  }
}

/** Removes from the view, and returns, the members who were on `node`. */
export function departed(visit: Visit, node: number): string[] {
  const gone: string[] = [];
  for (const [connectionId, at] of visit.view) {
    if (at !== node) continue;
    visit.view.delete(connectionId);
    gone.push(connectionId);
  }
  return gone;
}
