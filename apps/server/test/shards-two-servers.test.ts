import type { ShardServerFrame } from "@svc/sync";
import { postgresTestDatabase } from "@svc/tooling/databases";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, registerPassword, type SignInBody } from "./auth-fixtures.js";
import { databaseEnv, tempDir } from "./fixtures.js";
import { killAll, type ServerProcess, SPAWN_BASE_ENV, spawnServer } from "./process.js";
import { signInManifest, writeTestApp } from "./test-app.js";
import { connectWs, type WsClient } from "./ws-client.js";

// Issue 22, goal 4: two real server processes on one Postgres database,
// real `ws` clients on each. Members connected to different servers meet in
// one room instance (presence, messages, direct messages), the room's
// logic runs once (one tick sequence, one state), `maxMembers` and join
// rules hold across servers, and killing the room's home (SIGKILL) moves
// the room to the survivor. In-process cases (two hubs) are in
// packages/sync/test/shards-cluster.test.ts.

/** A room kind without logic, one with logic (ticks from the process that runs it), a pair, a private one. */
function writeApp(dir: string): string {
  const manifest = signInManifest("shards-two-servers", {
    rooms: [
      { name: "chat", join: "auth.userId != null" },
      { name: "game", join: "auth.userId != null", tickMs: 50 },
      { name: "pair", join: "auth.userId != null", maxMembers: 2 },
      { name: "inbox", join: "room.key == auth.userId" },
    ],
  });
  return writeTestApp(dir, manifest, {
    // A plain module (no import): the shape `room(...)` returns.
    gameRoom: `export default {
  type: "room",
  room: "game",
  onJoin(ctx, { member }) {
    ctx.room.state = { joined: [...(ctx.room.state?.joined ?? []), member.userId] };
  },
  onMessage(ctx, { from, data }) {
    ctx.room.broadcast({ from: from.userId, data, joined: ctx.room.state.joined.length });
  },
  onTick(ctx, { count }) {
    ctx.room.broadcast({ tick: count, pid: process.pid });
  },
};
`,
  });
}

const postgres = postgresTestDatabase();

async function next(client: WsClient): Promise<ShardServerFrame> {
  return (await client.next()) as unknown as ShardServerFrame;
}

/** The next frame of `type`, skipping others (ticks, pongs). */
async function nextOf<T extends ShardServerFrame["type"]>(
  client: WsClient,
  type: T,
): Promise<Extract<ShardServerFrame, { type: T }>> {
  for (;;) {
    const frame = await next(client);
    if (frame.type === type) return frame as Extract<ShardServerFrame, { type: T }>;
  }
}

/** The next message frame whose data has `key`, skipping others. */
async function nextData(client: WsClient, key: string): Promise<Record<string, unknown>> {
  for (;;) {
    const frame = await next(client);
    if (frame.type !== "message") continue;
    const data = frame.data as Record<string, unknown> | null;
    if (data !== null && typeof data === "object" && key in data) return data;
  }
}

describe.skipIf(postgres === undefined)(
  "rooms across two server processes on Postgres",
  { timeout: 15_000 },
  () => {
    let db: Awaited<ReturnType<typeof createTestDatabase>>;
    let dir: ReturnType<typeof tempDir>;
    let first: ServerProcess;
    let second: ServerProcess;
    let a: { url: string };
    let b: { url: string };
    const users: Record<string, SignInBody> = {};
    const clients: WsClient[] = [];

    const open = async (server: { url: string }, user: string, path: string) => {
      const client = await connectWs(server, { token: users[user]?.token ?? "", path });
      clients.push(client);
      return client;
    };
    const welcomed = async (client: WsClient) => nextOf(client, "welcome");

    beforeAll(async () => {
      if (postgres === undefined) return;
      db = await createTestDatabase(postgres);
      dir = tempDir();
      const env = {
        ...SPAWN_BASE_ENV,
        ...databaseEnv(db.target),
        SVC_MANIFEST: writeApp(dir.path),
        SVC_RATE_LIMIT: "off",
      };
      first = spawnServer(env);
      second = spawnServer(env);
      const [urlA, urlB] = await Promise.all([first.ready, second.ready]);
      a = { url: urlA };
      b = { url: urlB };
      for (const name of ["alice", "bob", "carol", "dave"]) {
        users[name] = await registerPassword(a, `${name}@example.com`);
      }
    }, 60_000);

    afterAll(async () => {
      for (const client of clients) client.socket.terminate();
      await killAll([first, second]);
      await db?.[Symbol.asyncDispose]();
      dir?.[Symbol.dispose]();
    });

    it("shows members on both servers to each other: welcome, join, presence, leave", async () => {
      const alice = await open(a, "alice", "/shard/chat/presence");
      const aliceId = (await welcomed(alice)).self.connectionId;
      const bob = await open(b, "bob", "/shard/chat/presence");
      const bobWelcome = await welcomed(bob);
      expect(bobWelcome.members.map((member) => member.connectionId)).toEqual([
        aliceId,
        bobWelcome.self.connectionId,
      ]);
      expect(await nextOf(alice, "join")).toMatchObject({ member: { userId: users.bob?.user_id } });
      bob.send({ type: "presence", data: { typing: true } });
      expect(await nextOf(alice, "presence")).toEqual({
        type: "presence",
        connectionId: bobWelcome.self.connectionId,
        data: { typing: true },
      });
      await bob.close();
      expect(await nextOf(alice, "leave")).toEqual({
        type: "leave",
        connectionId: bobWelcome.self.connectionId,
      });
    });

    it("relays broadcasts and direct messages between the servers", async () => {
      const alice = await open(a, "alice", "/shard/chat/messages");
      const aliceId = (await welcomed(alice)).self.connectionId;
      const bob = await open(b, "bob", "/shard/chat/messages");
      const bobId = (await welcomed(bob)).self.connectionId;
      const carol = await open(a, "carol", "/shard/chat/messages");
      await welcomed(carol);
      await nextOf(bob, "join");
      bob.send({ type: "message", data: "hello all" });
      for (const client of [alice, carol]) {
        expect(await nextOf(client, "message")).toEqual({
          type: "message",
          from: bobId,
          data: "hello all",
        });
      }
      // Direct, across servers, both ways; carol (alice's server) gets neither.
      alice.send({ type: "message", data: "to bob", to: bobId });
      expect(await nextOf(bob, "message")).toEqual({
        type: "message",
        from: aliceId,
        data: "to bob",
      });
      bob.send({ type: "message", data: "to alice", to: aliceId });
      expect(await nextOf(alice, "message")).toEqual({
        type: "message",
        from: bobId,
        data: "to alice",
      });
      carol.send({ type: "ping" });
      expect(await next(carol)).toEqual({ type: "pong" });
    });

    it("runs the room logic once: one tick sequence and one state for both servers", async () => {
      const alice = await open(a, "alice", "/shard/game/ticks");
      await welcomed(alice);
      const bob = await open(b, "bob", "/shard/game/ticks");
      await welcomed(bob);
      // Both see ticks counted by one process, each number once.
      const ticks = async (client: WsClient) => {
        const seen: Record<string, unknown>[] = [];
        while (seen.length < 5) seen.push(await nextData(client, "tick"));
        return seen;
      };
      const [onA, onB] = await Promise.all([ticks(alice), ticks(bob)]);
      for (const seen of [onA, onB]) {
        const counts = seen.map((tick) => tick.tick as number);
        expect(counts).toEqual(counts.map((_, index) => (counts[0] as number) + index));
        expect(new Set(seen.map((tick) => tick.pid)).size).toBe(1);
      }
      expect(onA[0]?.pid).toBe(onB[0]?.pid);
      expect(onA[0]?.pid).toBe(first.child.pid);
      // One state: onJoin ran for both in the same place.
      bob.send({ type: "message", data: "state?" });
      expect(await nextData(alice, "joined")).toEqual({
        from: users.bob?.user_id,
        data: "state?",
        joined: 2,
      });
    });

    it("counts maxMembers over both servers and refuses a join the rule refuses on both", async () => {
      await welcomed(await open(a, "alice", "/shard/pair/p"));
      await welcomed(await open(b, "bob", "/shard/pair/p"));
      for (const server of [a, b]) {
        const third = await open(server, "carol", "/shard/pair/p");
        expect(await third.closed).toEqual({ code: 1013, reason: "room is full" });
      }
      const inbox = `/shard/inbox/${users.alice?.user_id}`;
      await welcomed(await open(b, "alice", inbox));
      for (const server of [a, b]) {
        const intruder = await open(server, "bob", inbox);
        expect(await intruder.closed).toEqual({ code: 1008, reason: "join denied" });
      }
    });

    it("moves the room to the survivor when its home is killed", async () => {
      const alice = await open(a, "alice", "/shard/game/failover");
      const aliceId = (await welcomed(alice)).self.connectionId;
      const bob = await open(b, "bob", "/shard/game/failover");
      const bobId = (await welcomed(bob)).self.connectionId;
      expect((await nextData(bob, "tick")).pid).toBe(first.child.pid);
      first.child.kill("SIGKILL");
      await first.exited;
      expect(await nextOf(bob, "leave")).toEqual({ type: "leave", connectionId: aliceId });
      const again = await nextOf(bob, "welcome");
      expect(again.self.connectionId).toBe(bobId);
      expect(again.members.map((member) => member.userId)).toEqual([users.bob?.user_id]);
      // The survivor runs it now: its ticks, counted from 1 again.
      expect(await nextData(bob, "tick")).toEqual({ tick: 1, pid: second.child.pid });
      const dave = await open(b, "dave", "/shard/game/failover");
      expect((await welcomed(dave)).members.map((member) => member.userId)).toEqual([
        users.bob?.user_id,
        users.dave?.user_id,
      ]);
    });
  },
);
