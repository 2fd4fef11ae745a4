// The half of a fan-out server that both servers share: the IPC command
// loop, the writer's pacing and the process figures. Each server supplies
// only how one row is written (svc: through the store; bare: one frame to
// every socket).
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Duplex } from "node:stream";
import { setTimeout as sleep, setImmediate as yieldToIO } from "node:timers/promises";
import {
  type FanoutEntity,
  rowData,
  type ServerMessage,
  type ServerRequest,
  type ServerStats,
} from "./protocol.js";

/** How a server writes one row of `entity`: resolves once it is committed (and published). */
export type WriteRow = (
  entity: FanoutEntity,
  data: Record<string, string | number>,
) => Promise<void>;

/** What `serveFanout` needs from one server. */
export interface FanoutServer {
  readonly http: Server;
  readonly write: WriteRow;
  /** Open WebSocket connections. */
  connections(): number;
}

// Bytes that may wait in user space across all sockets before the writer
// pauses: the writer goes as fast as the hub's output drains, never faster
// (a hub that fell 1 MiB behind on a socket would close it with 1013).
const PAUSE_ABOVE_BYTES_PER_SOCKET = 32 * 1024;

function now(): number {
  return performance.timeOrigin + performance.now();
}

function reply(message: ServerMessage): void {
  process.send?.(message);
}

/**
 * Listens on an ephemeral loopback port, reports it to the parent, and
 * answers the parent's commands (see protocol.ts) until the channel closes.
 */
export async function serveFanout(server: FanoutServer): Promise<void> {
  // The raw sockets of every upgrade, to see how much output is waiting.
  const sockets = new Set<Duplex>();
  server.http.on("upgrade", (_req, socket: Duplex) => {
    sockets.add(socket);
    socket.once("close", () => sockets.delete(socket));
  });
  const waitingBytes = (): number => {
    let total = 0;
    for (const socket of sockets) total += socket.writableLength;
    return total;
  };
  const keepUp = async (): Promise<void> => {
    // The hub delivers in promise continuations: let them and the socket
    // writes run, then wait while output piles up.
    await yieldToIO();
    while (waitingBytes() > PAUSE_ABOVE_BYTES_PER_SOCKET * Math.max(1, sockets.size)) {
      await sleep(1);
    }
  };

  let written = 0;
  let cpuMark = process.cpuUsage();
  const run = async (request: ServerRequest): Promise<unknown> => {
    switch (request.cmd) {
      case "burst": {
        const started = performance.now();
        for (let i = 0; i < request.count; i += 1) {
          await server.write(request.entity, rowData(written++));
          await keepUp();
        }
        return { writeMs: performance.now() - started };
      }
      case "paced": {
        const started = performance.now();
        for (let i = 0; i < request.count; i += 1) {
          const due = started + i * request.intervalMs;
          const wait = due - performance.now();
          if (wait > 0) await sleep(wait);
          await server.write(request.entity, rowData(written++, now()));
        }
        return { writeMs: performance.now() - started };
      }
      case "mark":
        cpuMark = process.cpuUsage();
        return null;
      case "stats": {
        if (request.gc === true) {
          const gc = (globalThis as { gc?: () => void }).gc;
          if (gc === undefined) throw new Error("stats with gc needs node --expose-gc");
          for (let i = 0; i < 4; i += 1) {
            gc();
            await sleep(20);
          }
        }
        const cpu = process.cpuUsage(cpuMark);
        const memory = process.memoryUsage();
        const stats: ServerStats = {
          cpuMicros: cpu.user + cpu.system,
          heapUsed: memory.heapUsed,
          rss: memory.rss,
          connections: server.connections(),
        };
        return stats;
      }
      case "clock":
        return now();
    }
  };

  process.on("message", (message: ServerRequest) => {
    run(message).then(
      (value) => reply({ type: "answer", seq: message.seq, value }),
      (error: unknown) =>
        reply({
          type: "failed",
          seq: message.seq,
          message: error instanceof Error ? error.message : String(error),
        }),
    );
  });
  // The parent went away: nothing left to serve.
  process.on("disconnect", () => process.exit(0));
  // Exit normally on SIGTERM, so --cpu-prof writes its profile.
  process.once("SIGTERM", () => process.exit(0));

  await new Promise<void>((resolve) => server.http.listen(0, "127.0.0.1", resolve));
  reply({ type: "ready", port: (server.http.address() as AddressInfo).port });
}
