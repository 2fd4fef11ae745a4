import { type AuthContext, adminAuth, parseManifest, type RoomLogic } from "@svc/schema";
import { createStore, type Store } from "@svc/store";
import { openPostgres } from "@svc/store/pg";
import { openSqlite } from "@svc/store/sqlite";
import { openTestDatabase, testDatabases } from "@svc/tooling/databases";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { cachedExistsResolver, DEFAULT_SHARD_TICK_MS } from "../src/index.js";
import { memberEntity, taskEntity } from "./fixture.js";
import { fakeTimers, type ShardClient, until, useShardServer } from "./shards-client.js";

// Room logic as the shard transport runs it: refusals from onJoin,
// onMessage deciding what is sent, ticks at the declared rate only while a
// room has members, and logic reading the store as the member (or as the
// admin on ticks) on SQLite and Postgres. The logic objects here are what
// @svc/functions' `runner.rooms()` hands over (tested there).

const manifest = {
  manifest_version: 1,
  name: "shard-logic",
  version: "1",
  entities: [taskEntity, memberEntity],
  policies: [{ name: "assigned", entity: "Task", allowRead: "auth.userId == data.assigneeId" }],
  rooms: [
    { name: "echo", join: "auth.userId != null" },
    { name: "ticker", join: "auth.userId != null", tickMs: 50 },
    { name: "slow", join: "auth.userId != null" },
    { name: "desk", join: "auth.userId != null", tickMs: 20 },
    {
      name: "project",
      join: "exists(Member where projectId == room.key && userId == auth.userId)",
    },
  ],
} as const;

/** An error a client may see, as `ctx.error` raises them. */
function clientError(code: string, message: string, status = 403): Error {
  return Object.assign(new Error(message), { code, status, expose: true as const });
}

async function welcomed(client: ShardClient): Promise<string> {
  const frame = await client.next();
  if (frame.type !== "welcome") throw new Error(`expected welcome, got ${JSON.stringify(frame)}`);
  return frame.self.connectionId;
}

describe("room logic", () => {
  const start = useShardServer(manifest);

  it("lets onMessage transform, address or drop each message", async () => {
    const echo: RoomLogic = {
      async onMessage(room, { from, data, to }) {
        if (data === "drop") return;
        const upper = { from: from.userId, upper: String(data).toUpperCase() };
        if (to === undefined) room.broadcast(upper);
        else room.send(to, upper);
      },
    };
    const { join } = await start({ logic: new Map([["echo", echo]]) });
    const alice = await join("/shard/echo/x", "alice");
    await welcomed(alice);
    const bob = await join("/shard/echo/x", "bob");
    const bobId = await welcomed(bob);
    await alice.next(); // bob's join
    alice.send({ type: "message", data: "drop" });
    alice.send({ type: "message", data: "hello" });
    const frame = { type: "message", from: "server", data: { from: "alice", upper: "HELLO" } };
    expect(await alice.next()).toEqual(frame);
    expect(await bob.next()).toEqual(frame);
    alice.send({ type: "message", data: "psst", to: bobId });
    expect(await bob.next()).toMatchObject({ data: { upper: "PSST" } });
    alice.send({ type: "ping" });
    expect(await alice.next()).toEqual({ type: "pong" });
  });

  it("refuses a join when onJoin throws a client-safe error, and fails it on others", async () => {
    const errors: unknown[] = [];
    const locked: RoomLogic = {
      async onJoin(room, member) {
        if (room.key === "locked") throw clientError("ROOM_LOCKED", "The room is locked.");
        if (room.key === "broken") throw new Error("secret detail");
        room.state = {
          joined: [...((room.state as { joined?: string[] })?.joined ?? []), member.userId],
        };
      },
      async onMessage(room, { from }) {
        room.send(from.connectionId, room.state);
      },
    };
    const { join } = await start({
      logic: new Map([["echo", locked]]),
      onError: (error) => errors.push(error),
    });
    const refused = await join("/shard/echo/locked", "alice");
    expect(await refused.next()).toEqual({
      type: "error",
      error: { code: "ROOM_LOCKED", message: "The room is locked." },
    });
    expect(await refused.closed).toEqual({ code: 1008, reason: "ROOM_LOCKED" });
    const broken = await join("/shard/echo/broken", "alice");
    expect(await broken.next()).toMatchObject({ error: { code: "INTERNAL_ERROR" } });
    expect((await broken.closed).code).toBe(1011);
    expect(errors).toHaveLength(1);
    // State lives per instance: two joins to "open" are both in it.
    const alice = await join("/shard/echo/open", "alice");
    await welcomed(alice);
    const bob = await join("/shard/echo/open", "bob");
    await welcomed(bob);
    bob.send({ type: "message", data: null });
    expect(await bob.next()).toMatchObject({ data: { joined: ["alice", "bob"] } });
  });

  it("ticks at the declared rate only while the room has members", async () => {
    const timers = fakeTimers();
    const ticker: RoomLogic = {
      async onTick(room, tick) {
        room.broadcast({ tick: tick.count, at: tick.now });
      },
    };
    const { join, hub } = await start({
      logic: new Map([["ticker", ticker]]),
      timers,
      now: () => 7,
    });
    const alice = await join("/shard/ticker/t", "alice");
    await welcomed(alice);
    const bob = await join("/shard/ticker/t", "bob");
    await welcomed(bob);
    await alice.next(); // bob's join
    expect([...timers.active.values()].map((timer) => timer.ms)).toEqual([50]);
    for (const count of [1, 2, 3]) {
      timers.fire();
      const frame = { type: "message", from: "server", data: { tick: count, at: 7 } };
      expect(await alice.next()).toEqual(frame);
      expect(await bob.next()).toEqual(frame);
    }
    alice.socket.close();
    expect(await bob.next()).toMatchObject({ type: "leave" });
    timers.fire();
    expect(await bob.next()).toMatchObject({ data: { tick: 4 } });
    bob.socket.close();
    await until(() => hub.rooms === 0);
    expect(timers.active.size).toBe(0);
    expect(timers.started).toBe(1);
    // A new instance starts a new timer and count.
    const carol = await join("/shard/ticker/t", "carol");
    await welcomed(carol);
    timers.fire();
    expect(await carol.next()).toMatchObject({ data: { tick: 1 } });
    expect(timers.started).toBe(2);
  });

  it.each([
    ["ticker", 10, 50],
    ["slow", 250, 250],
    ["slow", undefined, DEFAULT_SHARD_TICK_MS],
  ])("ticks room %s with logic tickMs %s every %s ms", async (name, tickMs, expected) => {
    const timers = fakeTimers();
    const logic: RoomLogic = {
      ...(tickMs !== undefined && { tickMs }),
      onTick: async () => undefined,
    };
    const { join } = await start({ logic: new Map([[name, logic]]), timers });
    await welcomed(await join(`/shard/${name}`, "alice"));
    expect([...timers.active.values()].map((timer) => timer.ms)).toEqual([expected]);
  });

  it("reports a failing tick and keeps ticking", async () => {
    const timers = fakeTimers();
    const errors: unknown[] = [];
    const flaky: RoomLogic = {
      async onTick(room, { count }) {
        if (count === 1) throw new Error("first tick fails");
        room.broadcast(count);
      },
    };
    const { join } = await start({
      logic: new Map([["ticker", flaky]]),
      timers,
      onError: (error) => errors.push(error),
    });
    const alice = await join("/shard/ticker", "alice");
    await welcomed(alice);
    timers.fire();
    await until(() => errors.length === 1);
    timers.fire();
    expect(await alice.next()).toMatchObject({ data: 2 });
  });
});

describe.each(testDatabases())("room logic with the store on $name", (database) => {
  const start = useShardServer(manifest);
  let store: Store;
  let teardown: (() => Promise<void>) | undefined;

  beforeEach(async () => {
    const target = await database.create();
    const opened = openTestDatabase(target, { openSqlite, openPostgres });
    store = createStore({
      db: opened.db,
      dialect: opened.dialect,
      manifest: parseManifest(manifest),
    });
    await store.migrate();
    teardown = async () => {
      await opened.close();
      await database.destroy(target);
    };
    await store.transaction(adminAuth, async (db) => {
      await db.insert("Task", { title: "alice's", assigneeId: "alice" });
      await db.insert("Task", { title: "carol's", assigneeId: "carol" });
      await db.insert("Member", { projectId: "p1", userId: "bob" });
    });
  });

  afterEach(async () => {
    await teardown?.();
    teardown = undefined;
  });

  const count = async (auth: AuthContext): Promise<number> =>
    (await store.reader(auth).query("Task")).rows.length;

  it("reads as the member in onJoin and onMessage, and as the admin in onTick", async () => {
    const timers = fakeTimers();
    const desk: RoomLogic = {
      async onJoin(_room, _member, auth) {
        if ((await count(auth)) === 0) throw clientError("NO_TASKS", "You have no tasks.");
      },
      async onMessage(room, { from }, auth) {
        room.send(from.connectionId, { mine: await count(auth) });
      },
      async onTick(room) {
        room.broadcast({ all: await count(adminAuth) });
      },
    };
    const { join } = await start({ logic: new Map([["desk", desk]]), timers });
    const bob = await join("/shard/desk", "bob");
    expect(await bob.next()).toMatchObject({ error: { code: "NO_TASKS" } });
    expect((await bob.closed).code).toBe(1008);
    const alice = await join("/shard/desk", "alice");
    await welcomed(alice);
    alice.send({ type: "message", data: "count" });
    expect(await alice.next()).toMatchObject({ data: { mine: 1 } });
    timers.fire();
    expect(await alice.next()).toMatchObject({ data: { all: 2 } });
  });

  it("answers exists(...) in a join rule through the store", async () => {
    const { join } = await start({
      existsResolver: () => cachedExistsResolver(store.systemReader()),
    });
    const bob = await join("/shard/project/p1", "bob");
    expect(await bob.next()).toMatchObject({ type: "welcome" });
    const alice = await join("/shard/project/p1", "alice");
    expect(await alice.closed).toEqual({ code: 1008, reason: "join denied" });
    const elsewhere = await join("/shard/project/p2", "bob");
    expect(await elsewhere.closed).toEqual({ code: 1008, reason: "join denied" });
  });

  it("fails the join with 1011 when a join rule needs exists(...) and no resolver is given", async () => {
    const errors: unknown[] = [];
    const { join } = await start({ onError: (error) => errors.push(error) });
    const bob = await join("/shard/project/p1", "bob");
    expect(await bob.closed).toEqual({ code: 1011, reason: "join rule failed" });
    expect(errors).toMatchObject([{ code: "EXISTS_UNRESOLVED" }]);
  });
});
