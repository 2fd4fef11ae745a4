import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { compilePolicies } from "@svc/policy-engine";
import {
  type AuthContext,
  adminAuth,
  anonymousAuth,
  createAuthContext,
  parseManifest,
} from "@svc/schema";
import { afterEach, expect } from "vitest";
import { WebSocket } from "ws";
import {
  attachShards,
  type ShardHub,
  type ShardOptions,
  type ShardServerFrame,
  type ShardTimers,
} from "../src/index.js";
import { arrivals } from "./arrivals.js";

// Shared by the shard suites: real `ws` clients against a hub on an
// ephemeral-port HTTP server, and fake tick timers fired by hand.

export const callers: Record<string, AuthContext> = {
  alice: createAuthContext({ userId: "alice", roles: ["player"], via: "session" }),
  bob: createAuthContext({ userId: "bob", via: "session" }),
  carol: createAuthContext({ userId: "carol", via: "session" }),
  dave: createAuthContext({ userId: "dave", via: "session" }),
  admin: adminAuth,
  anonymous: anonymousAuth,
};

/** A connected client: frames in arrival order, and how it closed. */
export interface ShardClient {
  readonly socket: WebSocket;
  next(): Promise<ShardServerFrame>;
  send(frame: unknown): void;
  readonly closed: Promise<{ code: number; reason: string }>;
}

/** What opening a socket came to: a client, or the HTTP status of a refused upgrade. */
export type Opened = { client: ShardClient } | { status: number };

export function openSocket(
  url: string,
  options: { token?: string; protocols?: string[]; origin?: string } = {},
): Promise<Opened> {
  const headers: Record<string, string> = {};
  if (options.token !== undefined) headers.authorization = `Bearer ${options.token}`;
  const socket = new WebSocket(url, options.protocols ?? [], {
    headers,
    ...(options.origin !== undefined && { origin: options.origin }),
  });
  const frames = arrivals<ShardServerFrame>();
  socket.on("message", (data) => frames.push(JSON.parse(String(data)) as ShardServerFrame));
  socket.on("error", () => undefined);
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    socket.on("close", (code, reason) => resolve({ code, reason: String(reason) })),
  );
  const client: ShardClient = {
    socket,
    next: frames.next,
    send: (frame) => socket.send(typeof frame === "string" ? frame : JSON.stringify(frame)),
    closed,
  };
  return new Promise((resolve) => {
    socket.once("open", () => resolve({ client }));
    socket.once("unexpected-response", (_req, res) => {
      resolve({ status: res.statusCode ?? 0 });
      socket.terminate();
    });
  });
}

/** Tick timers fired by hand: `fire()` runs every active interval once. */
export interface FakeTimers extends ShardTimers {
  /** Intervals started and not cleared, with their period. */
  readonly active: Map<number, { tick: () => void; ms: number }>;
  readonly started: number;
  fire(): void;
}

export function fakeTimers(): FakeTimers {
  const active = new Map<number, { tick: () => void; ms: number }>();
  let next = 0;
  return {
    active,
    get started() {
      return next;
    },
    setInterval(tick, ms) {
      next += 1;
      active.set(next, { tick, ms });
      return next;
    },
    clearInterval(handle) {
      active.delete(handle as number);
    },
    fire() {
      for (const { tick } of [...active.values()]) tick();
    },
  };
}

/** Resolves once `check` holds, polling; fails after `timeoutMs`. */
export async function until(check: () => boolean, timeoutMs = 2000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** Starts hubs on ephemeral ports and tears them down after each test. */
export function useShardServer(manifest: unknown) {
  const policies = compilePolicies(parseManifest(manifest));
  const started: { server: Server; hub: ShardHub; sockets: WebSocket[] }[] = [];

  afterEach(async () => {
    for (const { server, hub, sockets } of started.splice(0)) {
      for (const socket of sockets) socket.terminate();
      await hub.close({ timeoutMs: 0 });
      await new Promise((resolve) => server.close(resolve));
    }
  });

  return async (options: Partial<ShardOptions> = {}) => {
    const server = createServer();
    const hub = attachShards(server, {
      policies,
      trustedOrigins: true,
      authenticate: { resolvers: [(token) => callers[token] ?? null] },
      ...options,
    });
    const entry = { server, hub, sockets: [] as WebSocket[] };
    started.push(entry);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const base = `ws://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const open = async (path: string, token?: string, extra: { origin?: string } = {}) => {
      const opened = await openSocket(`${base}${path}`, {
        ...extra,
        ...(token !== undefined && { token }),
      });
      if ("client" in opened) entry.sockets.push(opened.client.socket);
      return opened;
    };
    /** Opens a socket that must upgrade. */
    const join = async (path: string, token: string): Promise<ShardClient> => {
      const opened = await open(path, token);
      if (!("client" in opened)) throw new Error(`upgrade refused with ${opened.status}`);
      return opened.client;
    };
    return { hub, base, open, join };
  };
}

/**
 * `alice` is told that `bob` (connection `bobId`) joined her room, then of
 * the presence he sets: the same frames on one node or across a cluster.
 */
export async function expectJoinThenPresence(
  alice: ShardClient,
  bob: ShardClient,
  bobId: string,
): Promise<void> {
  expect(await alice.next()).toEqual({
    type: "join",
    member: { connectionId: bobId, userId: "bob", presence: null },
  });
  bob.send({ type: "presence", data: { cursor: [1, 2] } });
  expect(await alice.next()).toEqual({
    type: "presence",
    connectionId: bobId,
    data: { cursor: [1, 2] },
  });
}
