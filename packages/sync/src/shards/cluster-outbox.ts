import type { ShardServerFrame } from "@svc/schema/live-frames";
import type { RelayMessage } from "./relay-wire.js";

// A room's home sends each frame to every member; members on another
// server are reached through the relay. A broadcast hands the same frame
// object to each member in turn, so consecutive deliveries of one frame to
// one server become one message naming all of them (a broadcast to 50
// members on a server costs one message, not 50).

type RoomRef = { readonly n: string; readonly k: string | null };

/** What the outbox needs: a relay to send through. */
export interface OutboxRelay {
  send(node: number, message: RelayMessage): void;
}

/** Messages to other servers, in order per server, with deliveries coalesced. */
export interface ClusterOutbox {
  /**
   * Delivers `frame` to member `connectionId` on server `node`. `nodes`
   * (only for `welcome` and `join` frames) says where each listed member
   * is; it is computed once per frame.
   */
  deliver(
    node: number,
    room: RoomRef,
    connectionId: string,
    frame: ShardServerFrame,
    nodes?: () => number[],
  ): void;
  /** Any other message: after every delivery queued before it. */
  send(node: number, message: RelayMessage): void;
  /** Forgets what was not sent yet (the relay was lost). */
  clear(): void;
}

interface Pending {
  readonly room: RoomRef;
  readonly frame: ShardServerFrame;
  readonly to: string[];
  readonly nodes: number[] | undefined;
}

export function createClusterOutbox(relay: OutboxRelay): ClusterOutbox {
  const pending = new Map<number, Pending>();
  let scheduled = false;

  const flush = (node: number): void => {
    const entry = pending.get(node);
    if (entry === undefined) return;
    pending.delete(node);
    relay.send(node, {
      t: "deliver",
      r: entry.room,
      to: entry.to,
      f: entry.frame,
      ...(entry.nodes !== undefined && { nodes: entry.nodes }),
    });
  };
  const flushAll = (): void => {
    scheduled = false;
    for (const node of [...pending.keys()]) flush(node);
  };

  return {
    deliver(node, room, connectionId, frame, nodes) {
      const entry = pending.get(node);
      if (entry?.frame === frame) {
        entry.to.push(connectionId);
        return;
      }
      flush(node);
      pending.set(node, { room, frame, to: [connectionId], nodes: nodes?.() });
      if (!scheduled) {
        scheduled = true;
        // Everything one handler sends in one go is coalesced, then sent.
        queueMicrotask(flushAll);
      }
    },
    send(node, message) {
      flush(node);
      relay.send(node, message);
    },
    clear() {
      pending.clear();
    },
  };
}
