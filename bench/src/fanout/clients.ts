// The subscribers: real `ws` clients in the bench's own process (the
// server has the other core). They count frames; in latency mode they
// parse each frame and time it against the server's clock.
import { WebSocket } from "ws";
import { type FanoutEntity, SUBSCRIPTION_ID, tokenOf } from "./protocol.js";

/** How a pool opens its subscribers. */
export interface PoolOptions {
  readonly url: string;
  readonly count: number;
  readonly entity: FanoutEntity;
  /**
   * Latency mode: parse every change frame and call this with the
   * receipt time (this process's `performance.timeOrigin + now()`) and the
   * row's `sentAt`. Otherwise frames are counted only (the first is parsed
   * and checked), so the clients cost the server's core as little as possible.
   */
  readonly onChange?: (receivedAt: number, sentAt: number) => void;
}

/** Open, subscribed clients. */
export interface ClientPool {
  /** Change frames received by all clients since the last `reset`. */
  received(): number;
  /** Bytes of the first change frame a client received (to compare the servers' frames). */
  frameBytes(): number;
  /** Resolves once `total` change frames arrived since the last `reset`; rejects on timeout. */
  waitFor(total: number, timeoutMs: number): Promise<void>;
  reset(): void;
  close(): Promise<void>;
}

// Connections opened at a time: enough to be quick, few enough not to
// flood the server's accept queue.
const OPEN_AT_ONCE = 100;

function now(): number {
  return performance.timeOrigin + performance.now();
}

/** Opens `count` clients, each subscribed to `entity` with its own caller; resolves after every snapshot. */
export async function openClients(options: PoolOptions): Promise<ClientPool> {
  const sockets: WebSocket[] = [];
  let received = 0;
  let firstFrameBytes = 0;
  let target = Number.POSITIVE_INFINITY;
  let reached: (() => void) | undefined;
  let failure: Error | undefined;
  // A subscriber that fails while a wait is pending ends the wait at once.
  const failWith = (error: Error): void => {
    failure ??= error;
    reached?.();
  };

  const onFrame = (text: string): void => {
    if (firstFrameBytes === 0) {
      const frame = JSON.parse(text) as { type?: string; id?: string; op?: string };
      if (frame.type !== "change" || frame.id !== SUBSCRIPTION_ID || frame.op !== "insert") {
        failWith(new Error(`unexpected frame: ${text.slice(0, 200)}`));
      }
      firstFrameBytes = Buffer.byteLength(text);
    }
    if (options.onChange !== undefined) {
      const frame = JSON.parse(text) as { row: { sentAt: number } };
      options.onChange(now(), frame.row.sentAt);
    }
    received += 1;
    if (received >= target) reached?.();
  };

  const openOne = (index: number): Promise<void> =>
    new Promise((resolve, reject) => {
      const socket = new WebSocket(options.url, {
        headers: { authorization: `Bearer ${tokenOf(index)}` },
        perMessageDeflate: false,
        skipUTF8Validation: true,
      });
      sockets.push(socket);
      let subscribed = false;
      socket.on("error", (error) => {
        if (!subscribed) reject(error);
        else failWith(error);
      });
      socket.on("close", (code, reason) => {
        if (!subscribed) reject(new Error(`closed before the snapshot: ${code} ${reason}`));
        else if (code !== 1000 && code !== 1005) {
          failWith(new Error(`a subscriber was closed: ${code} ${String(reason)}`));
        }
      });
      socket.once("open", () => {
        socket.send(
          JSON.stringify({
            type: "subscribe",
            id: SUBSCRIPTION_ID,
            entity: options.entity,
            limit: 1,
          }),
        );
      });
      socket.on("message", (data) => {
        const text = String(data);
        if (subscribed) {
          onFrame(text);
          return;
        }
        const frame = JSON.parse(text) as { type?: string };
        if (frame.type !== "snapshot") {
          reject(new Error(`expected a snapshot, got ${text.slice(0, 200)}`));
          return;
        }
        subscribed = true;
        resolve();
      });
    });

  try {
    for (let start = 0; start < options.count; start += OPEN_AT_ONCE) {
      const batch: Promise<void>[] = [];
      for (let i = start; i < Math.min(options.count, start + OPEN_AT_ONCE); i += 1) {
        batch.push(openOne(i));
      }
      await Promise.all(batch);
    }
  } catch (error) {
    for (const socket of sockets) socket.terminate();
    throw error;
  }

  return {
    received: () => received,
    frameBytes: () => firstFrameBytes,
    waitFor(total, timeoutMs) {
      if (failure !== undefined) return Promise.reject(failure);
      if (received >= total) return Promise.resolve();
      return new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => {
          reached = undefined;
          target = Number.POSITIVE_INFINITY;
          reject(
            failure ??
              new Error(
                `timed out: ${received.toLocaleString("en-US")} of ${total.toLocaleString("en-US")} frames arrived`,
              ),
          );
        }, timeoutMs);
        target = total;
        reached = () => {
          clearTimeout(timer);
          reached = undefined;
          target = Number.POSITIVE_INFINITY;
          if (failure !== undefined) reject(failure);
          else resolve();
        };
      });
    },
    reset() {
      received = 0;
    },
    async close() {
      await Promise.all(
        sockets.map(
          (socket) =>
            new Promise<void>((resolve) => {
              if (socket.readyState === WebSocket.CLOSED) return resolve();
              socket.once("close", () => resolve());
              socket.close(1000);
              setTimeout(() => {
                socket.terminate();
                resolve();
              }, 2000).unref();
            }),
        ),
      );
    },
  };
}
