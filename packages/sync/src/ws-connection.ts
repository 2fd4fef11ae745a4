import type { Duplex } from "node:stream";
import type { AuthContext } from "@svc/schema";
import type { WebSocket } from "ws";
import type { Sync } from "./create-sync.js";
import { openSession, type Session } from "./session.js";
import { clientFrameSchema, type ServerFrame, WS_CLOSE_CODES } from "./ws-frames.js";

const AS_TEXT = { binary: false } as const;

/** One authenticated socket and its session. */
export interface Connection {
  readonly socket: WebSocket;
  /** The TCP socket under it (corked while a batch is delivered). */
  readonly raw: Duplex;
  readonly session: Session;
  /** Set by the keepalive ping, cleared by the pong. */
  alive: boolean;
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

  const send = (data: string | Buffer): void => {
    const size = typeof data === "string" ? Buffer.byteLength(data) : data.length;
    if (socket.bufferedAmount + size > maxQueue) {
      close(
        WS_CLOSE_CODES.TRY_AGAIN_LATER,
        "too far behind; reconnect and resume from your cursor",
      );
      return;
    }
    socket.send(data, AS_TEXT);
  };

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

  socket.on("message", (data, isBinary) => {
    if (closing) return;
    if (isBinary) {
      close(WS_CLOSE_CODES.UNSUPPORTED_DATA, "frames must be JSON text");
      return;
    }
    let value: unknown;
    try {
      value = JSON.parse(String(data));
    } catch {
      close(WS_CLOSE_CODES.INVALID_PAYLOAD, "frames must be JSON text");
      return;
    }
    const parsed = clientFrameSchema.safeParse(value);
    if (!parsed.success) {
      const id = (value as { id?: unknown } | null)?.id;
      session.invalidFrame(typeof id === "string" ? id : undefined);
      return;
    }
    session.handle(parsed.data);
  });

  const connection: Connection = { socket, raw, session, alive: true, end: close };
  socket.on("pong", () => {
    connection.alive = true;
  });
  socket.on("close", () => {
    closing = true;
    session.close();
  });
  return connection;
}
