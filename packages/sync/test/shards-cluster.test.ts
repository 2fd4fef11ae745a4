import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { compilePolicies } from "@svc/policy-engine";
import { parseManifest, type RoomLogic } from "@svc/schema";
import { postgresTestDatabase, type TestDatabaseTarget } from "@svc/tooling/databases";
import pg from "pg";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { WebSocket } from "ws";
import {
  attachShards,
  createShardCluster,
  type ShardCluster,
  type ShardClusterOptions,
  type ShardHub,
  type ShardOptions,
  type ShardServerFrame,
} from "../src/index.js";
import {
  callers,
  expectJoinThenPresence,
  type FakeTimers,
  fakeTimers,
  openSocket,
  type ShardClient,
  until,
} from "./shards-client.js";

// Rooms across servers: two hubs in this process, each on its own HTTP
// server and its own shard cluster (its own Postgres connection), on one
// database schema, with real `ws` clients. What one server does alone is
// in shards.test.ts and shards-logic.test.ts; two real server processes
// (kill -9 included) are in apps/server/test/shards-two-servers.test.ts.

const manifest = parseManifest({
  manifest_version: 1,
  name: "shards-cluster",
  version: "1",
  rooms: [
    { name: "chat", join: "auth.userId != null" },
    { name: "game", join: "auth.hasRole('player')" },
    { name: "duo", join: "auth.userId != null", maxMembers: 2 },
    { name: "ticker", join: "auth.userId != null" },
    { name: "echo", join: "auth.userId != null" },
  ],
});
const policies = compilePolicies(manifest);
const CHECK_MS = 50;

const postgres = postgresTestDatabase();

/** One "server": an HTTP server with a hub whose rooms are shared through its cluster. */
interface Node {
  readonly hub: ShardHub;
  readonly cluster: ShardCluster;
  readonly timers: FakeTimers;
  join(path: string, token: string): Promise<ShardClient>;
  open(path: string, token: string): ReturnType<typeof openSocket>;
  /** Stops it as a crash would: Postgres ends its session, its sockets drop without a word. */
  crash(): Promise<void>;
  stop(): Promise<void>;
}

async function welcome(client: ShardClient) {
  const frame = await client.next();
  if (frame.type !== "welcome") throw new Error(`expected welcome, got ${JSON.stringify(frame)}`);
  return frame;
}

/** The next frame of `type`, skipping others. */
async function nextOf<T extends ShardServerFrame["type"]>(
  client: ShardClient,
  type: T,
): Promise<Extract<ShardServerFrame, { type: T }>> {
  for (;;) {
    const frame = await client.next();
    if (frame.type === type) return frame as Extract<ShardServerFrame, { type: T }>;
  }
}

// A frame that never comes fails the test in 10 s, not the preset's 60.
/**
 * Reads frames, keeping the member list as a client does (a `welcome`
 * replaces it, `join` adds, `leave` removes), until it holds `expected`
 * user ids (in any order).
 */
async function membersBecome(client: ShardClient, expected: string[]): Promise<void> {
  const members = new Map<string, string | null>();
  const matches = () => [...members.values()].sort().join() === [...expected].sort().join();
  while (!matches()) {
    const frame = await client.next();
    if (frame.type === "welcome") {
      members.clear();
      for (const member of frame.members) members.set(member.connectionId, member.userId);
    } else if (frame.type === "join") {
      members.set(frame.member.connectionId, frame.member.userId);
    } else if (frame.type === "leave") {
      members.delete(frame.connectionId);
    }
  }
}

describe.skipIf(postgres === undefined)(
  "rooms across servers on Postgres",
  { timeout: 10_000 },
  () => {
    const database = postgres as NonNullable<typeof postgres>;
    let target: Extract<TestDatabaseTarget, { dialect: "postgres" }>;
    let admin: pg.Client;
    const nodes: Node[] = [];

    beforeEach(async () => {
      target = (await database.create()) as typeof target;
      admin = new pg.Client({ connectionString: target.url });
      await admin.connect();
    });

    afterEach(async () => {
      for (const node of nodes.splice(0)) await node.stop();
      await admin.end();
      await database.destroy(target);
    });

    /** The Postgres session of a cluster (its node lock's holder). */
    async function sessionOf(cluster: ShardCluster): Promise<number> {
      const { rows } = await admin.query<{ pid: number }>(
        "select pid from pg_locks where locktype = 'advisory' and objid = $1::oid and objsubid = 2 and granted",
        [cluster.node],
      );
      if (rows[0] === undefined) throw new Error("no session for this cluster");
      return rows[0].pid;
    }

    async function startNode(
      options: Partial<ShardOptions> = {},
      clusterOptions: Partial<ShardClusterOptions> = {},
    ): Promise<Node> {
      const cluster = createShardCluster({
        connectionString: target.url,
        checkMs: CHECK_MS,
        retry: { initialDelayMs: 10, maxDelayMs: 50 },
        // Losses are what some tests cause; a failing test shows its frames instead.
        onError: () => undefined,
        ...clusterOptions,
      });
      await cluster.ready();
      const server: Server = createServer();
      const timers = fakeTimers();
      const hub = attachShards(server, {
        policies,
        trustedOrigins: true,
        authenticate: { resolvers: [(token) => callers[token] ?? null] },
        cluster,
        timers,
        ...options,
      });
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
      const base = `ws://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const sockets: WebSocket[] = [];
      let stopped = false;
      const stop = async (): Promise<void> => {
        if (stopped) return;
        stopped = true;
        for (const socket of sockets) socket.terminate();
        await hub.close({ timeoutMs: 0 });
        await cluster.close();
        await new Promise((resolve) => server.close(resolve));
      };
      const open = async (path: string, token: string) => {
        const opened = await openSocket(`${base}${path}`, { token });
        if ("client" in opened) sockets.push(opened.client.socket);
        return opened;
      };
      const node: Node = {
        hub,
        cluster,
        timers,
        open,
        async join(path, token) {
          const opened = await open(path, token);
          if (!("client" in opened)) throw new Error(`upgrade refused with ${opened.status}`);
          return opened.client;
        },
        async crash() {
          const pid = await sessionOf(cluster);
          // Its connection goes first, so it cannot say goodbye (no leave, no handover).
          await admin.query("select pg_terminate_backend($1)", [pid]);
          await stop();
        },
        stop,
      };
      nodes.push(node);
      return node;
    }

    /** Two nodes: alice in chat room `key` on the first, then bob on the second, seen joining. */
    async function aliceThenBobAcross(key: string) {
      const a = await startNode();
      const b = await startNode();
      const alice = await a.join(`/shard/chat/${key}`, "alice");
      await welcome(alice);
      const bob = await b.join(`/shard/chat/${key}`, "bob");
      const bobId = (await welcome(bob)).self.connectionId;
      await nextOf(alice, "join");
      return { a, b, alice, bob, bobId };
    }

    it("lets members on two servers meet: welcome, join, presence, leave", async () => {
      const a = await startNode();
      const b = await startNode();
      const alice = await a.join("/shard/chat/general", "alice");
      const aliceId = (await welcome(alice)).self.connectionId;
      const bob = await b.join("/shard/chat/general", "bob");
      const bobWelcome = await welcome(bob);
      expect(bobWelcome.members.map((member) => member.userId)).toEqual(["alice", "bob"]);
      expect(bobWelcome.members[0]?.connectionId).toBe(aliceId);
      const bobId = bobWelcome.self.connectionId;
      await expectJoinThenPresence(alice, bob, bobId);
      // One instance: both hubs count both members.
      expect(a.hub.members("chat", "general") + b.hub.members("chat", "general")).toBe(4);
      // Another key is another instance, alone on its server.
      const carol = await b.join("/shard/chat/other", "carol");
      expect((await welcome(carol)).members.map((member) => member.userId)).toEqual(["carol"]);
      bob.socket.close();
      expect(await alice.next()).toEqual({ type: "leave", connectionId: bobId });
    });

    it("relays broadcasts and direct messages across servers", async () => {
      const a = await startNode();
      const b = await startNode();
      const alice = await a.join("/shard/chat/room", "alice");
      const aliceId = (await welcome(alice)).self.connectionId;
      const bob = await b.join("/shard/chat/room", "bob");
      const bobId = (await welcome(bob)).self.connectionId;
      const carol = await a.join("/shard/chat/room", "carol");
      await welcome(carol);
      await nextOf(alice, "join");
      await nextOf(alice, "join");
      await nextOf(bob, "join");
      bob.send({ type: "message", data: { hello: "everyone" } });
      const broadcast = { type: "message", from: bobId, data: { hello: "everyone" } };
      expect(await alice.next()).toEqual(broadcast);
      expect(await carol.next()).toEqual(broadcast);
      // To one member on the other server: nobody else gets it.
      alice.send({ type: "message", data: "psst", to: bobId });
      expect(await bob.next()).toEqual({ type: "message", from: aliceId, data: "psst" });
      bob.send({ type: "message", data: "back", to: aliceId });
      expect(await alice.next()).toEqual({ type: "message", from: bobId, data: "back" });
      carol.send({ type: "ping" });
      expect(await carol.next()).toEqual({ type: "pong" });
      // An unknown id is refused wherever the sender is.
      bob.send({ type: "message", data: 1, to: "nobody" });
      expect(await bob.next()).toMatchObject({
        type: "error",
        error: { code: "MEMBER_NOT_FOUND" },
      });
    });

    it("counts maxMembers over both servers, and the join rule refuses on both", async () => {
      const a = await startNode();
      const b = await startNode();
      await welcome(await a.join("/shard/duo/x", "alice"));
      await welcome(await b.join("/shard/duo/x", "bob"));
      const third = await b.join("/shard/duo/x", "carol");
      expect(await third.closed).toEqual({ code: 1013, reason: "room is full" });
      const fourth = await a.join("/shard/duo/x", "dave");
      expect(await fourth.closed).toEqual({ code: 1013, reason: "room is full" });
      for (const node of [a, b]) {
        const refused = await node.join("/shard/game/1", "bob");
        expect(await refused.closed).toEqual({ code: 1008, reason: "join denied" });
      }
    });

    it("runs room logic once per room: one onTick, one state, for members on every server", async () => {
      const seen: string[] = [];
      const ticker: RoomLogic = {
        async onJoin(room, member) {
          seen.push(`join ${member.userId}`);
          room.state = {
            joined: [...((room.state as { joined?: string[] })?.joined ?? []), member.userId],
          };
        },
        async onMessage(room, { from, data }) {
          room.broadcast({ from: from.userId, data, state: room.state });
        },
        async onTick(room, { count }) {
          room.broadcast({ tick: count, members: room.members().length });
        },
      };
      const logic = new Map([["ticker", ticker]]);
      const a = await startNode({ logic });
      const b = await startNode({ logic });
      const alice = await a.join("/shard/ticker/t", "alice");
      await welcome(alice);
      const bob = await b.join("/shard/ticker/t", "bob");
      await welcome(bob);
      await nextOf(alice, "join");
      // The room has one timer, on its home (alice's server).
      expect(a.timers.active.size + b.timers.active.size).toBe(1);
      expect(a.timers.active.size).toBe(1);
      for (let round = 1; round <= 3; round++) {
        a.timers.fire();
        b.timers.fire();
        const tick = { type: "message", from: "server", data: { tick: round, members: 2 } };
        expect(await alice.next()).toEqual(tick);
        expect(await bob.next()).toEqual(tick);
      }
      bob.send({ type: "message", data: "hi" });
      const reply = {
        type: "message",
        from: "server",
        data: { from: "bob", data: "hi", state: { joined: ["alice", "bob"] } },
      };
      expect(await bob.next()).toEqual(reply);
      expect(await alice.next()).toEqual(reply);
      expect(seen).toEqual(["join alice", "join bob"]);
    });

    it("delivers every frame of a room in one order to members on both servers", async () => {
      const a = await startNode();
      const b = await startNode();
      const watchers = [
        await a.join("/shard/chat/o", "carol"),
        await b.join("/shard/chat/o", "dave"),
      ];
      for (const watcher of watchers) await welcome(watcher);
      const senders = [
        await a.join("/shard/chat/o", "alice"),
        await b.join("/shard/chat/o", "bob"),
      ];
      for (const sender of senders) await welcome(sender);
      const received = async (client: ShardClient): Promise<unknown[]> => {
        const data: unknown[] = [];
        while (data.length < 40) {
          const frame = await client.next();
          if (frame.type === "message") data.push(frame.data);
        }
        return data;
      };
      const orders = watchers.map(received);
      for (let index = 0; index < 20; index++) {
        senders[0]?.send({ type: "message", data: `a${index}` });
        senders[1]?.send({ type: "message", data: `b${index}` });
      }
      const [carol, dave] = await Promise.all(orders);
      expect(carol).toEqual(dave);
      expect(carol?.filter((data) => String(data).startsWith("a"))).toEqual(
        Array.from({ length: 20 }, (_, index) => `a${index}`),
      );
    });

    it("carries data of up to 32 KiB (any characters) across servers intact", async () => {
      const { alice, bob } = await aliceThenBobAcross("big");
      // Over four notifications' worth, with characters that take 2 to 4 bytes.
      const data = { text: "é€😀x".repeat(2500) };
      expect(Buffer.byteLength(JSON.stringify(data))).toBeGreaterThan(25_000);
      bob.send({ type: "presence", data });
      expect(await alice.next()).toMatchObject({ type: "presence", data });
      alice.send({ type: "message", data });
      expect(await bob.next()).toMatchObject({ type: "message", data });
    });

    it("when a member's server dies, its members leave the room on the other", async () => {
      const { a, b, alice, bobId } = await aliceThenBobAcross("d");
      await b.crash();
      expect(await alice.next()).toEqual({ type: "leave", connectionId: bobId });
      await until(() => a.hub.members("chat", "d") === 1);
    });

    it("when the room's home dies, the room moves to a surviving server", async () => {
      const ticker: RoomLogic = {
        async onJoin(room, member) {
          room.state = {
            joined: [...((room.state as { joined?: string[] })?.joined ?? []), member.userId],
          };
        },
        async onTick(room, { count }) {
          room.broadcast({ tick: count, state: room.state });
        },
      };
      const logic = new Map([["ticker", ticker]]);
      const home = await startNode({ logic });
      const survivor = await startNode({ logic });
      const alice = await home.join("/shard/ticker/m", "alice");
      const aliceId = (await welcome(alice)).self.connectionId;
      const bob = await survivor.join("/shard/ticker/m", "bob");
      const bobId = (await welcome(bob)).self.connectionId;
      const carol = await survivor.join("/shard/ticker/m", "carol");
      await welcome(carol);
      await nextOf(bob, "join");
      expect(survivor.timers.active.size).toBe(0);
      await home.crash();
      // Its members left; the others are welcomed again by the room's new home.
      expect(await bob.next()).toEqual({ type: "leave", connectionId: aliceId });
      const again = await nextOf(bob, "welcome");
      expect(again.self.connectionId).toBe(bobId);
      expect(again.members.map((member) => member.userId)).toEqual(["bob"]);
      expect(await nextOf(carol, "welcome")).toMatchObject({
        members: [{ userId: "bob" }, { userId: "carol" }],
      });
      expect(await nextOf(bob, "join")).toMatchObject({ member: { userId: "carol" } });
      // The survivor runs the room now: its ticks, state restarted (onJoin ran again).
      expect(survivor.timers.active.size).toBe(1);
      survivor.timers.fire();
      const tick = {
        type: "message",
        from: "server",
        data: { tick: 1, state: { joined: ["bob", "carol"] } },
      };
      expect(await bob.next()).toEqual(tick);
      expect(await carol.next()).toEqual(tick);
      // And a newcomer on a third server meets them there.
      const c = await startNode({ logic });
      const dave = await c.join("/shard/ticker/m", "dave");
      expect((await welcome(dave)).members.map((member) => member.userId)).toEqual([
        "bob",
        "carol",
        "dave",
      ]);
    });

    it("hands a room over when its home shuts down", async () => {
      const home = await startNode();
      const other = await startNode();
      const alice = await home.join("/shard/chat/h", "alice");
      const aliceId = (await welcome(alice)).self.connectionId;
      const bob = await other.join("/shard/chat/h", "bob");
      await welcome(bob);
      await home.stop();
      expect(await bob.next()).toEqual({ type: "leave", connectionId: aliceId });
      expect((await nextOf(bob, "welcome")).members.map((member) => member.userId)).toEqual([
        "bob",
      ]);
      const carol = await other.join("/shard/chat/h", "carol");
      expect((await welcome(carol)).members.map((member) => member.userId)).toEqual([
        "bob",
        "carol",
      ]);
    });

    it("with three servers, the survivors of a dead home meet wherever the room moves", async () => {
      const logic = new Map([["ticker", { async onTick() {} } satisfies RoomLogic]]);
      const home = await startNode({ logic });
      const b = await startNode({ logic });
      const c = await startNode({ logic });
      const alice = await home.join("/shard/ticker/3", "alice");
      await welcome(alice);
      const bob = await b.join("/shard/ticker/3", "bob");
      const carol = await c.join("/shard/ticker/3", "carol");
      await membersBecome(bob, ["alice", "bob", "carol"]);
      await membersBecome(carol, ["alice", "bob", "carol"]);
      await home.crash();
      await membersBecome(bob, ["bob", "carol"]);
      await membersBecome(carol, ["bob", "carol"]);
      // One of them runs it now, and only one.
      await until(() => b.timers.active.size + c.timers.active.size === 1);
      bob.send({ type: "message", data: "still here" });
      expect(await nextOf(carol, "message")).toMatchObject({ data: "still here" });
    });

    it("closes the members of a server whose Postgres connection is lost; the room goes on", async () => {
      const { b, alice, bob, bobId } = await aliceThenBobAcross("l");
      const lostNode = b.cluster.node;
      await admin.query("select pg_terminate_backend($1)", [await sessionOf(b.cluster)]);
      // Its locks and messages may be gone: it cannot vouch for its members.
      expect(await bob.closed).toEqual({ code: 1013, reason: "room relay lost; reconnect" });
      expect(await nextOf(alice, "leave")).toEqual({ type: "leave", connectionId: bobId });
      // It reconnects (as another node) and its members meet the room again.
      await until(() => b.cluster.node !== null && b.cluster.node !== lostNode);
      const again = await b.join("/shard/chat/l", "bob");
      expect((await welcome(again)).members.map((member) => member.userId)).toEqual([
        "alice",
        "bob",
      ]);
    });

    it("lets a member's server shut down: its members leave at once", async () => {
      const { b, alice, bobId } = await aliceThenBobAcross("bye");
      await b.stop();
      expect(await nextOf(alice, "leave")).toEqual({ type: "leave", connectionId: bobId });
    });

    it("sends a broadcast to many members on another server as one message", async () => {
      const a = await startNode();
      const b = await startNode();
      const alice = await a.join("/shard/chat/many", "alice");
      await welcome(alice);
      const others: ShardClient[] = [];
      for (const user of ["bob", "carol", "dave", "bob", "carol"]) {
        const client = await b.join("/shard/chat/many", user);
        await welcome(client);
        others.push(client);
      }
      await until(() => a.hub.members("chat", "many") === 6);
      for (let joins = 0; joins < 5; joins++) await nextOf(alice, "join");
      const before = a.cluster.stats().messagesSent;
      alice.send({ type: "message", data: "to all" });
      for (const client of others)
        expect(await nextOf(client, "message")).toMatchObject({ data: "to all" });
      expect(a.cluster.stats().messagesSent - before).toBe(1);
    });

    it("closes a member on another server that a frame would put over its queue bound", async () => {
      // The home applies the member's bound before the frame crosses (its own server would close it too).
      const a = await startNode({ maxQueue: 4096 });
      const b = await startNode({ maxQueue: 4096 });
      const alice = await a.join("/shard/chat/q", "alice");
      await welcome(alice);
      const bob = await b.join("/shard/chat/q", "bob");
      await welcome(bob);
      alice.send({ type: "message", data: "x".repeat(8192) });
      expect(await bob.closed).toEqual({ code: 1013, reason: "too far behind; reconnect" });
    });

    it("resets a relay whose messages pile up past maxPendingBytes, closing its members", async () => {
      const a = await startNode();
      const b = await startNode({}, { maxPendingBytes: 4096 });
      const alice = await a.join("/shard/chat/p", "alice");
      await welcome(alice);
      const bob = await b.join("/shard/chat/p", "bob");
      await welcome(bob);
      bob.send({ type: "message", data: "y".repeat(8192) });
      expect(await bob.closed).toEqual({ code: 1013, reason: "room relay lost; reconnect" });
      await until(() => a.hub.members("chat", "p") === 1);
    });
  },
);
