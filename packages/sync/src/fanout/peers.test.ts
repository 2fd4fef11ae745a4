import { EventEmitter } from "node:events";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { WebSocket } from "ws";
import {
  boundedWrite,
  type ChangeSource,
  createFanout,
  type FanoutPeer,
  followChanges,
  type SubscribedPeer,
} from "./peers.js";
import { socketPeer } from "./socket-peer.js";

// The fan-out core on its own: what the three live transports rely on
// (keepalive, drain, change delivery, the slow-consumer bound). The
// transports' end-to-end behaviour is tested in test/ws-hub, sse and shards.

/** A peer that records what the core did to it. */
function recordingPeer(options: { closesOnShutdown?: boolean; terminable?: boolean } = {}) {
  const events: string[] = [];
  const closeListeners: (() => void)[] = [];
  let closed = false;
  const closeNow = (): void => {
    if (closed) return;
    closed = true;
    for (const listener of closeListeners.splice(0)) listener();
  };
  const peer: FanoutPeer = {
    beat: () => events.push("beat"),
    isClosed: () => closed,
    onceClosed: (listener) => closeListeners.push(listener),
    shutdown() {
      events.push("shutdown");
      if (options.closesOnShutdown !== false) closeNow();
    },
    ...(options.terminable !== false && {
      terminate() {
        events.push("terminate");
        closeNow();
      },
    }),
  };
  return { peer, events, closeNow };
}

describe("createFanout", () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("beats every open peer each interval, and no longer after stop", () => {
    const fanout = createFanout<FanoutPeer>({ keepaliveMs: 100 });
    const a = recordingPeer();
    const b = recordingPeer();
    fanout.add(a.peer);
    fanout.add(b.peer);
    vi.advanceTimersByTime(99);
    expect(a.events).toEqual([]);
    vi.advanceTimersByTime(1);
    fanout.delete(b.peer);
    vi.advanceTimersByTime(100);
    expect(a.events).toEqual(["beat", "beat"]);
    expect(b.events).toEqual(["beat"]);
    expect(fanout.size).toBe(1);
    fanout.stop();
    vi.advanceTimersByTime(1000);
    expect(a.events).toEqual(["beat", "beat"]);
  });

  it("drains: shuts open peers down, leaves closed ones, resolves once all closed", async () => {
    const fanout = createFanout<FanoutPeer>({ keepaliveMs: 100 });
    const open = recordingPeer();
    const gone = recordingPeer();
    gone.closeNow();
    fanout.add(open.peer);
    fanout.add(gone.peer);
    await fanout.drain();
    expect(open.events).toEqual(["shutdown"]);
    expect(gone.events).toEqual([]);
    fanout.stop();
  });

  it("terminates peers still open when the drain times out", async () => {
    const fanout = createFanout<FanoutPeer>({ keepaliveMs: 10_000 });
    const slow = recordingPeer({ closesOnShutdown: false });
    fanout.add(slow.peer);
    const drained = fanout.drain(500);
    await vi.advanceTimersByTimeAsync(499);
    expect(slow.events).toEqual(["shutdown"]);
    await vi.advanceTimersByTimeAsync(1);
    await drained;
    expect(slow.events).toEqual(["shutdown", "terminate"]);
    fanout.stop();
  });

  it("waits for a peer with nothing to terminate (a stream) to close", async () => {
    const fanout = createFanout<FanoutPeer>({ keepaliveMs: 10_000 });
    const stream = recordingPeer({ closesOnShutdown: false, terminable: false });
    fanout.add(stream.peer);
    let done = false;
    const drained = fanout.drain(100).then(() => {
      done = true;
    });
    await vi.advanceTimersByTimeAsync(1000);
    expect(done).toBe(false);
    stream.closeNow();
    await drained;
    expect(done).toBe(true);
    fanout.stop();
  });
});

describe("followChanges", () => {
  function changeSource() {
    const listeners = new Set<Parameters<ChangeSource["subscribe"]>[0]>();
    const resets = new Set<() => void>();
    const source: ChangeSource = {
      subscribe(listener) {
        listeners.add(listener);
        return () => listeners.delete(listener);
      },
      log: {
        onReset(listener) {
          resets.add(listener);
          return () => resets.delete(listener);
        },
      },
    };
    return { source, listeners, resets };
  }

  it("delivers each batch to every peer, corked around it, and each reset; stops", () => {
    const { source, listeners, resets } = changeSource();
    const events: string[] = [];
    const peer = (name: string, corks: boolean): SubscribedPeer => ({
      session: {
        deliver: (changes) => events.push(`${name} deliver ${changes.length}`),
        reset: () => events.push(`${name} reset`),
      },
      ...(corks && {
        corked: {
          cork: () => events.push(`${name} cork`),
          uncork: () => events.push(`${name} uncork`),
        },
      }),
    });
    const stop = followChanges(source, [peer("ws", true), peer("sse", false)]);
    for (const listener of listeners) listener([], async () => false);
    for (const listener of resets) listener();
    expect(events).toEqual([
      "ws cork",
      "ws deliver 0",
      "ws uncork",
      "sse deliver 0",
      "ws reset",
      "sse reset",
    ]);
    stop();
    expect(listeners.size).toBe(0);
    expect(resets.size).toBe(0);
  });
});

describe("boundedWrite", () => {
  it("writes while the backlog stays within maxQueue and drops the consumer past it", () => {
    let buffered = 0;
    const written: string[] = [];
    const overflow = vi.fn();
    const write = boundedWrite<string>({
      maxQueue: 10,
      queued: (data) => buffered + data.length,
      write: (data) => {
        written.push(data);
        buffered += data.length;
      },
      overflow,
    });
    write("12345");
    write("67890");
    expect(overflow).not.toHaveBeenCalled();
    write("x");
    expect(written).toEqual(["12345", "67890"]);
    expect(overflow).toHaveBeenCalledTimes(1);
  });
});

describe("socketPeer", () => {
  /** Just the parts of a `ws` socket that `socketPeer` uses. */
  function fakeSocket() {
    const emitter = new EventEmitter();
    const calls: string[] = [];
    const socket = Object.assign(emitter, {
      CLOSED: 3,
      readyState: 1,
      ping: () => calls.push("ping"),
      terminate: () => calls.push("terminate"),
      close: (code: number, reason: string) => calls.push(`close ${code} ${reason}`),
    });
    return { socket: socket as unknown as WebSocket, emitter, calls };
  }

  it("pings each beat and terminates a peer that missed the previous ping", () => {
    const { socket, emitter, calls } = fakeSocket();
    const peer = socketPeer(socket);
    peer.beat();
    emitter.emit("pong");
    peer.beat();
    expect(calls).toEqual(["ping", "ping"]);
    peer.beat();
    expect(calls).toEqual(["ping", "ping", "terminate"]);
  });

  it("shuts down with 1001", () => {
    const { socket, calls } = fakeSocket();
    socketPeer(socket).shutdown();
    expect(calls).toEqual(["close 1001 server shutting down"]);
  });
});
