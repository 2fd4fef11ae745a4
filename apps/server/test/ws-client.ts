import type { ServerFrame } from "@svc/sync";
import { expect } from "vitest";
import { WebSocket } from "ws";

/** A connected test client: frames in arrival order, awaited one at a time. */
export interface WsClient {
  readonly socket: WebSocket;
  /** The next frame not yet taken (waits for it). */
  next(): Promise<ServerFrame>;
  send(frame: unknown): void;
  /** Resolves with the close code and reason. */
  readonly closed: Promise<{ code: number; reason: string }>;
  close(): Promise<void>;
}

/** Takes the client's next frame and expects it to be of `type`. */
export async function nextOf<T extends ServerFrame["type"]>(
  client: WsClient,
  type: T,
): Promise<Extract<ServerFrame, { type: T }>> {
  const frame = await client.next();
  expect(frame.type, JSON.stringify(frame)).toBe(type);
  return frame as Extract<ServerFrame, { type: T }>;
}

/** How a connection attempt ended before any frame: refused with a status, or opened. */
export type WsAttempt = { status: number } | { client: WsClient };

export interface WsConnectOptions {
  readonly token?: string;
  readonly protocols?: readonly string[];
  readonly headers?: Readonly<Record<string, string>>;
  readonly path?: string;
}

/** Opens a socket to `server` (`/ws` by default); resolves when it opens or is refused. */
export function attemptWs(
  server: { url: string },
  options: WsConnectOptions = {},
): Promise<WsAttempt> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.token !== undefined) headers.authorization = `Bearer ${options.token}`;
  const url = `${server.url.replace(/^http/, "ws")}${options.path ?? "/ws"}`;
  const socket = new WebSocket(url, [...(options.protocols ?? [])], { headers });
  const frames: ServerFrame[] = [];
  const waiters: ((frame: ServerFrame) => void)[] = [];
  socket.on("message", (data) => {
    const frame = JSON.parse(String(data)) as ServerFrame;
    const waiter = waiters.shift();
    if (waiter === undefined) frames.push(frame);
    else waiter(frame);
  });
  // Errors after the attempt settled (a refused upgrade, a cut socket) end in `closed`.
  socket.on("error", () => undefined);
  const closed = new Promise<{ code: number; reason: string }>((resolve) => {
    socket.on("close", (code, reason) => resolve({ code, reason: String(reason) }));
  });
  const client: WsClient = {
    socket,
    next() {
      const frame = frames.shift();
      if (frame !== undefined) return Promise.resolve(frame);
      return new Promise((resolve) => waiters.push(resolve));
    },
    send(frame) {
      socket.send(typeof frame === "string" ? frame : JSON.stringify(frame));
    },
    closed,
    async close() {
      if (socket.readyState !== socket.CLOSED) socket.close();
      await closed;
    },
  };
  return new Promise((resolve, reject) => {
    socket.once("open", () => resolve({ client }));
    socket.once("unexpected-response", (_req, res) => {
      resolve({ status: res.statusCode ?? 0 });
      res.resume();
      socket.terminate();
    });
    socket.once("error", reject);
  });
}

/** Opens a socket that must be accepted. */
export async function connectWs(
  server: { url: string },
  options: WsConnectOptions = {},
): Promise<WsClient> {
  const attempt = await attemptWs(server, options);
  if (!("client" in attempt)) throw new Error(`the upgrade was refused with ${attempt.status}`);
  return attempt.client;
}
