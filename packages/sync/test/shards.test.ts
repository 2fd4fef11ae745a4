import { describe, expect, it } from "vitest";
import {
  createLiveCallers,
  MAX_SHARD_DATA_BYTES,
  MAX_SHARD_FRAME_BYTES,
  OPERATOR_CLOSE,
  SHARD_PROTOCOL,
  shardClientFrameSchema,
} from "../src/index.js";
import {
  callers,
  expectJoinThenPresence,
  openSocket,
  type ShardClient,
  until,
  useShardServer,
} from "./shards-client.js";

// The shard transport without room logic: upgrades (paths, origins,
// callers, join rules), presence, messages kept inside their room instance,
// frame limits, backpressure and shutdown. Join rules that read auth only
// need no database; room logic with a store is in shards-logic.test.ts.

const manifest = {
  manifest_version: 1,
  name: "shards",
  version: "1",
  rooms: [
    { name: "chat", join: "auth.userId != null" },
    { name: "lobby", join: "auth.userId != null" },
    { name: "game", join: "auth.hasRole('player')" },
    { name: "dm", join: "room.key == auth.userId" },
    { name: "duo", join: "auth.userId != null", maxMembers: 1 },
  ],
} as const;

async function welcome(client: ShardClient) {
  const frame = await client.next();
  if (frame.type !== "welcome") throw new Error(`expected welcome, got ${JSON.stringify(frame)}`);
  return frame;
}

/** Asserts that nothing is queued for `client`: the next frame after a ping is its pong. */
async function expectNothingFor(client: ShardClient): Promise<void> {
  client.send({ type: "ping" });
  expect(await client.next()).toEqual({ type: "pong" });
}

describe("shardClientFrameSchema", () => {
  it.each([
    { type: "ping" },
    { type: "presence", data: { x: 1 } },
    { type: "message", data: "hi" },
    { type: "message", data: null, to: "abc" },
  ])("accepts %j", (frame) => {
    expect(shardClientFrameSchema.safeParse(frame).success).toBe(true);
  });

  it.each([
    { type: "pong" },
    { type: "message", data: 1, to: "" },
    { type: "ping", extra: 1 },
    { type: "join", room: "x" },
    [],
  ])("rejects %j", (frame) => {
    expect(shardClientFrameSchema.safeParse(frame).success).toBe(false);
  });
});

describe("attachShards", () => {
  const start = useShardServer(manifest);

  it("shows joins, presence updates and leaves to the other members", async () => {
    const { join, hub } = await start();
    const alice = await join("/shard/chat/general", "alice");
    const first = await welcome(alice);
    expect(first).toMatchObject({
      self: { userId: "alice" },
      room: { name: "chat", key: "general" },
      members: [{ userId: "alice", presence: null }],
    });
    const bob = await join("/shard/chat/general", "bob");
    const second = await welcome(bob);
    expect(second.members.map((member) => member.userId)).toEqual(["alice", "bob"]);
    const bobId = second.self.connectionId;
    await expectJoinThenPresence(alice, bob, bobId);
    const carol = await join("/shard/chat/general", "carol");
    expect((await welcome(carol)).members[1]).toEqual({
      connectionId: bobId,
      userId: "bob",
      presence: { cursor: [1, 2] },
    });
    expect(hub.members("chat", "general")).toBe(3);
    bob.socket.close();
    expect(await alice.next()).toMatchObject({ type: "join", member: { userId: "carol" } });
    expect(await alice.next()).toEqual({ type: "leave", connectionId: bobId });
    expect(await carol.next()).toEqual({ type: "leave", connectionId: bobId });
    // The sender does not get its own presence back.
    carol.send({ type: "presence", data: "away" });
    expect(await alice.next()).toMatchObject({ type: "presence", data: "away" });
    await expectNothingFor(carol);
  });

  it("keeps messages inside their room instance: other keys and kinds see nothing", async () => {
    const { join } = await start();
    const alice = await join("/shard/chat/a", "alice");
    const bob = await join("/shard/chat/a", "bob");
    const carol = await join("/shard/chat/b", "carol");
    const dave = await join("/shard/lobby", "dave");
    const aliceId = (await welcome(alice)).self.connectionId;
    await welcome(bob);
    await welcome(carol);
    await welcome(dave);
    await alice.next(); // bob's join
    alice.send({ type: "message", data: { text: "hi a" } });
    expect(await bob.next()).toEqual({ type: "message", from: aliceId, data: { text: "hi a" } });
    for (const client of [alice, carol, dave]) await expectNothingFor(client);
  });

  it("sends a message with `to` to that member only", async () => {
    const { join } = await start();
    const alice = await join("/shard/chat/a", "alice");
    const bob = await join("/shard/chat/a", "bob");
    const carol = await join("/shard/chat/a", "carol");
    const aliceId = (await welcome(alice)).self.connectionId;
    const bobId = (await welcome(bob)).self.connectionId;
    await welcome(carol);
    alice.send({ type: "message", data: "psst", to: bobId });
    await bob.next(); // carol's join
    expect(await bob.next()).toEqual({ type: "message", from: aliceId, data: "psst" });
    await expectNothingFor(carol);
    alice.send({ type: "message", data: "lost", to: "nobody" });
    await alice.next(); // bob's join
    await alice.next(); // carol's join
    expect(await alice.next()).toMatchObject({
      type: "error",
      error: { code: "MEMBER_NOT_FOUND" },
    });
  });

  it.each([
    ["/shard/game", "alice", null],
    ["/shard/game", "bob", "join denied"],
    ["/shard/dm/bob", "bob", null],
    ["/shard/dm/bob", "alice", "join denied"],
    ["/shard/dm", "bob", "join denied"],
    ["/shard/game", "admin", null],
  ])("join rule of %s for %s: %s", async (path, token, refusal) => {
    const { join } = await start();
    const client = await join(path, token);
    if (refusal === null) {
      expect(await welcome(client)).toMatchObject({ self: { userId: callerId(token) } });
    } else {
      expect(await client.closed).toEqual({ code: 1008, reason: refusal });
    }
  });

  it.each([
    ["/shard/ghost", 404],
    ["/shard/ghost/k", 404],
    ["/shard", 404],
    ["/shard/", 404],
    ["/shard/chat/a/b", 404],
    ["/shard/chat/a%20b", 404],
    [`/shard/chat/${"k".repeat(129)}`, 404],
    ["/ws", 404],
  ])("refuses the upgrade of %s with %s", async (path, status) => {
    const { open } = await start();
    expect(await open(path, "alice")).toEqual({ status });
  });

  it("refuses an untrusted origin with 403 and admits the trusted one", async () => {
    const { open } = await start({ trustedOrigins: ["https://app.example"] });
    expect(await open("/shard/chat", "alice", { origin: "https://evil.example" })).toEqual({
      status: 403,
    });
    expect(await open("/shard/chat", "alice", { origin: "https://app.example" })).toHaveProperty(
      "client",
    );
  });

  it.each([
    [undefined, "authentication required"],
    ["anonymous", "authentication required"],
    ["forged", "invalid token"],
  ])("closes the socket of caller %s with 1008", async (token, reason) => {
    const { open } = await start();
    const opened = await open("/shard/chat", token);
    if (!("client" in opened)) throw new Error("expected an upgrade");
    expect(await opened.client.closed).toEqual({ code: 1008, reason });
  });

  it("reads the bearer from the subprotocol and answers svc.shard.v1", async () => {
    const { base } = await start();
    const opened = await openSocket(`${base}/shard/chat`, {
      protocols: [SHARD_PROTOCOL, "bearer.bob"],
    });
    if (!("client" in opened)) throw new Error("expected an upgrade");
    expect(opened.client.socket.protocol).toBe(SHARD_PROTOCOL);
    expect(await welcome(opened.client)).toMatchObject({ self: { userId: "bob" } });
    opened.client.socket.close();
  });

  it("handles frames sent before the welcome once joined", async () => {
    const { base } = await start();
    const opened = await openSocket(`${base}/shard/chat`, { token: "alice" });
    if (!("client" in opened)) throw new Error("expected an upgrade");
    opened.client.send({ type: "ping" });
    expect((await opened.client.next()).type).toBe("welcome");
    expect(await opened.client.next()).toEqual({ type: "pong" });
    opened.client.socket.close();
  });

  it("lists a member's socket with its room, and closes it on an operator's request with 1013", async () => {
    const registry = createLiveCallers({
      authenticate: { resolvers: [(token) => callers[token] ?? null] },
      recheckIntervalMs: 0,
    });
    const { join } = await start({ callers: registry });
    const alice = await join("/shard/chat/general", "alice");
    await welcome(alice);
    expect(registry.list()).toEqual([
      expect.objectContaining({
        transport: "room",
        userId: "alice",
        room: { name: "chat", key: "general" },
        subscriptions: [],
      }),
    ]);
    expect(registry.disconnect(registry.list()[0]?.id ?? "")).toBe(true);
    expect(await alice.closed).toEqual({ code: 1013, reason: OPERATOR_CLOSE });
    await until(() => registry.connections === 0);
    registry.close();
  });

  it("closes a full room's newcomer with 1013", async () => {
    const { join } = await start();
    await welcome(await join("/shard/duo/x", "alice"));
    const late = await join("/shard/duo/x", "bob");
    expect(await late.closed).toEqual({ code: 1013, reason: "room is full" });
  });

  it("closes an oversized frame with 1009, text that is not JSON with 1007, binary with 1003", async () => {
    const { join } = await start();
    const big = await join("/shard/chat", "alice");
    await welcome(big);
    big.send({ type: "message", data: "x".repeat(MAX_SHARD_FRAME_BYTES) });
    expect((await big.closed).code).toBe(1009);
    const garbled = await join("/shard/chat", "bob");
    await welcome(garbled);
    garbled.send("{not json");
    expect((await garbled.closed).code).toBe(1007);
    const binary = await join("/shard/chat", "carol");
    await welcome(binary);
    binary.socket.send(Buffer.from([1, 2, 3]));
    expect((await binary.closed).code).toBe(1003);
  });

  it("answers invalid frames and oversized data with error frames, staying open", async () => {
    const { join } = await start();
    const client = await join("/shard/chat", "alice");
    await welcome(client);
    const cases: [unknown, string][] = [
      [{ type: "shout" }, "INVALID_FRAME"],
      [{ type: "message" }, "INVALID_FRAME"],
      [{ type: "presence", data: "x".repeat(MAX_SHARD_DATA_BYTES) }, "DATA_TOO_LARGE"],
      [
        { type: "message", data: JSON.parse(`${"[".repeat(40)}${"]".repeat(40)}`) },
        "DATA_TOO_LARGE",
      ],
    ];
    for (const [frame, code] of cases) {
      client.send(frame);
      expect(await client.next()).toMatchObject({ type: "error", error: { code } });
    }
    await expectNothingFor(client);
  });

  it("closes a member past its queue bound with 1013", async () => {
    const { join } = await start({ maxQueue: 64 });
    const client = await join("/shard/chat/a-long-enough-key-for-the-welcome", "alice");
    expect((await client.closed).code).toBe(1013);
  });

  it("closes every socket with 1001 on close() and drops the rooms", async () => {
    const { join, hub } = await start();
    const alice = await join("/shard/chat/a", "alice");
    const bob = await join("/shard/lobby", "bob");
    await welcome(alice);
    await welcome(bob);
    expect(hub.rooms).toBe(2);
    expect(hub.connections).toBe(2);
    await hub.close();
    expect((await alice.closed).code).toBe(1001);
    expect((await bob.closed).code).toBe(1001);
    await until(() => hub.rooms === 0);
  });
});

function callerId(token: string): string | null {
  return token === "admin" ? null : token;
}
