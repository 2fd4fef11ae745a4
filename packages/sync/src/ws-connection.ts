import type { Duplex } from "node:stream";
import type { AuthContext } from "@svc/schema";
import type { WebSocket } from "ws";
import type { Sync } from "./create-sync.js";
import type { FanoutPeer, SubscribedPeer } from "./fanout/peers.js";
import { boundedSocketSend, onJsonFrames, socketPeer } from "./fanout/socket-peer.js";
import { openSession, type Session } from "./session.js";
import { clientFrameSchema, type ServerFrame, WS_CLOSE_CODES } from "./ws-frames.js";

/** One authenticated socket and its session, a peer of the hub's fan-out. */
export interface Connection extends FanoutPeer, SubscribedPeer {
  readonly session: Session;
  /** The TCP socket under it (corked while a batch is delivered). */
  readonly corked: Duplex;
  /** Drops the session and closes the socket with `code` (once). */
  end(code: number, reason: string): void;
}

/** What a connection needs from its hub. */
export interface ConnectionContext {
  readonly sync: Sync;
  /** Bytes that may wait in the socket's outgoing buffer before it is closed with 1013. */
  readonly maxQueue: number;
  readonly onError: (error: unknown) => void;
}

/** Serves the frames of one authenticated socket. */
export function openConnection(
  socket: WebSocket,
  raw: Duplex,
  auth: AuthContext,
  context: ConnectionContext,
): Connection {
  const { sync, maxQueue, onError } = context;
  let closing = false;

  const close = (code: number, reason: string): void => {
    if (closing) return;
    closing = true;
    session.close();
    socket.close(code, reason);
  };

  const send = boundedSocketSend(socket, maxQueue, () =>
    close(WS_CLOSE_CODES.TRY_AGAIN_LATER, "too far behind; reconnect and resume from your cursor"),
  );

  const session = openSession(
    auth,
    sync,
    {
      send: (frame: ServerFrame) => send(JSON.stringify(frame)),
      sendChange: (encoded) => send(encoded),
      get open() {
        return !closing && socket.readyState === socket.OPEN;
      },
    },
    onError,
  );

  onJsonFrames(socket, {
    closing: () => closing,
    close,
    onFrame(value) {
      const parsed = clientFrameSchema.safeParse(value);
      if (!parsed.success) {
        const id = (value as { id?: unknown } | null)?.id;
        session.invalidFrame(typeof id === "string" ? id : undefined);
        return;
      }
      session.handle(parsed.data);
    },
  });

  socket.on("close", () => {
    closing = true;
    session.close();
  });
  return { ...socketPeer(socket), corked: raw, session, end: close };
}
