import { type WebSocket, WebSocketServer } from "ws";
import { WS_CLOSE_CODES } from "../ws-frames.js";
import { boundedWrite, type FanoutPeer } from "./peers.js";

// What the two WebSocket transports (`/ws` and the shards) share beyond the
// fan-out core: ping/pong keepalive with dead-peer detection, the 1001 of a
// shutdown, writes bounded by `bufferedAmount`, JSON text frames in, and the
// `WebSocketServer` both hand upgrades to.

const AS_TEXT = { binary: false } as const;

/**
 * A socket as a fan-out peer: each beat pings it, and a peer that did not
 * answer the previous ping (no pong since) is terminated. Shutdown closes
 * it with 1001.
 */
export function socketPeer(socket: WebSocket): FanoutPeer {
  let alive = true;
  socket.on("pong", () => {
    alive = true;
  });
  return {
    beat() {
      if (!alive) {
        socket.terminate();
        return;
      }
      alive = false;
      socket.ping();
    },
    isClosed: () => socket.readyState === socket.CLOSED,
    onceClosed(listener) {
      socket.once("close", () => listener());
    },
    shutdown() {
      socket.close(WS_CLOSE_CODES.GOING_AWAY, "server shutting down");
    },
    terminate() {
      socket.terminate();
    },
  };
}

/**
 * Sends text frames on `socket` while its outgoing buffer plus the frame
 * stays within `maxQueue` bytes; past it, `overflow` (which closes the
 * socket with 1013) instead.
 */
export function boundedSocketSend(
  socket: WebSocket,
  maxQueue: number,
  overflow: () => void,
): (data: string | Buffer) => void {
  return boundedWrite<string | Buffer>({
    maxQueue,
    queued: (data) =>
      socket.bufferedAmount + (typeof data === "string" ? Buffer.byteLength(data) : data.length),
    write: (data) => socket.send(data, AS_TEXT),
    overflow,
  });
}

/**
 * Reads a socket's frames as JSON text: a binary frame closes it with 1003,
 * text that is not JSON with 1007; each parsed value goes to `onFrame`
 * (which validates it). Frames that arrive while `closing()` are dropped.
 */
export function onJsonFrames(
  socket: WebSocket,
  handlers: {
    closing(): boolean;
    close(code: number, reason: string): void;
    onFrame(value: unknown): void;
  },
): void {
  socket.on("message", (data, isBinary) => {
    if (handlers.closing()) return;
    if (isBinary) {
      handlers.close(WS_CLOSE_CODES.UNSUPPORTED_DATA, "frames must be JSON text");
      return;
    }
    let value: unknown;
    try {
      value = JSON.parse(String(data));
    } catch {
      handlers.close(WS_CLOSE_CODES.INVALID_PAYLOAD, "frames must be JSON text");
      return;
    }
    handlers.onFrame(value);
  });
}

/**
 * The `WebSocketServer` a transport hands its upgrades to: no tracking of
 * its own (the fan-out tracks peers), no compression, frames up to
 * `maxPayload` (a larger one closes with 1009). The subprotocol echoed is
 * `protocol` when offered, else the `bearer.<token>` one a browser sent
 * its credential in.
 */
export function createUpgradeServer(protocol: string, maxPayload: number): WebSocketServer {
  return new WebSocketServer({
    noServer: true,
    clientTracking: false,
    maxPayload,
    perMessageDeflate: false,
    handleProtocols: (protocols) => {
      if (protocols.has(protocol)) return protocol;
      return [...protocols].find((offered) => offered.startsWith("bearer.")) ?? false;
    },
  });
}
