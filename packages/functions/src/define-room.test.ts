import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseManifest, type RoomHandle, type RoomMember } from "@svc/schema";
import { adminAuth, createAuthContext, createStore, type Store } from "@svc/store";
import { openPostgres } from "@svc/store/pg";
import { openSqlite } from "@svc/store/sqlite";
import { openTestDatabase, testDatabases } from "@svc/tooling/databases";
import { afterEach, beforeEach, describe, expect, expectTypeOf, it } from "vitest";
import { findDefinitionProblem } from "./check-definition.js";
import { createFunctionRunner } from "./create-function-runner.js";
import { room } from "./define-room.js";
import type { FunctionFileDefinition } from "./function-registry.js";
import { loadFunctions } from "./load-functions.js";

// Room logic from the runner: contexts (db with the member's rights, admin
// rights on ticks), client-safe errors, and the checks at creation. The
// transport that calls it is tested in @svc/sync.

const manifest = parseManifest({
  manifest_version: 1,
  name: "rooms",
  version: "1",
  entities: [{ name: "Score", fields: [{ name: "userId", type: "string", owner: true }] }],
  policies: [{ name: "own", entity: "Score", allowRead: "auth.userId == data.userId" }],
  rooms: [
    { name: "game", join: "auth.userId != null" },
    { name: "chat", join: "auth.userId != null" },
  ],
});

const u1 = createAuthContext({ userId: "u1", via: "session" });

function handle(): RoomHandle & { sent: unknown[] } {
  const sent: unknown[] = [];
  return {
    name: "game",
    key: "g1",
    members: () => [],
    broadcast: (data) => sent.push(data),
    send: (id, data) => sent.push({ id, data }),
    state: null,
    sent,
  };
}

const member: RoomMember = { connectionId: "c1", userId: "u1", presence: null };

describe("room()", () => {
  it("types the handlers' context and input", () => {
    room("game", {
      onJoin: (ctx, { member }) => {
        expectTypeOf(ctx.room).toEqualTypeOf<RoomHandle>();
        expectTypeOf(member).toEqualTypeOf<RoomMember>();
        expectTypeOf(ctx.db.query).toBeFunction();
        expectTypeOf(ctx.db).not.toHaveProperty("insert");
      },
      onTick: (_ctx, tick) => {
        expectTypeOf(tick.count).toBeNumber();
      },
    });
  });

  it("tags the definition with its type and kind", () => {
    const definition = room("game", { onTick: () => undefined, tickMs: 50 });
    expect(definition).toMatchObject({ type: "room", room: "game", tickMs: 50 });
    expect(findDefinitionProblem(definition)).toBeUndefined();
  });

  it.each<[Record<string, unknown>, string]>([
    [{ type: "room", onJoin: () => undefined }, `needs "room"`],
    [{ type: "room", room: "a/b", onJoin: () => undefined }, `needs "room"`],
    [{ type: "room", room: "game" }, "at least one of onJoin"],
    [{ type: "room", room: "game", onJoin: 1 }, `"onJoin" must be a function`],
    [{ type: "room", room: "game", onTick: () => 1, tickMs: 5 }, `"tickMs" must be an integer`],
  ])("finds the problem of %j", (definition, problem) => {
    expect(findDefinitionProblem(definition)).toContain(problem);
  });

  it("loads from a plain .mjs file", async () => {
    const dir = await mkdtemp(join(tmpdir(), "svc-rooms-"));
    try {
      await writeFile(
        join(dir, "gameRoom.mjs"),
        `export default { type: "room", room: "game", onMessage: (ctx, { data }) => ctx.room.broadcast(data) };\n`,
      );
      const registry = await loadFunctions(dir);
      expect(registry.get("gameRoom")).toMatchObject({ type: "room", room: "game" });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe.each(testDatabases())("runner.rooms() on $name", (database) => {
  let store: Store;
  let close: () => Promise<void>;
  let destroy: () => Promise<void>;

  beforeEach(async () => {
    const target = await database.create();
    const opened = openTestDatabase(target, { openSqlite, openPostgres });
    store = createStore({ db: opened.db, dialect: opened.dialect, manifest });
    await store.migrate();
    close = opened.close;
    destroy = () => database.destroy(target);
  });

  afterEach(async () => {
    await close();
    await destroy();
  });

  const runnerWith = (entries: [string, FunctionFileDefinition][]) =>
    createFunctionRunner({ store, functions: new Map(entries) });

  it("reads as the member in onJoin and onMessage, as the admin in onTick", async () => {
    await store.transaction(adminAuth, async (db) => {
      await db.insert("Score", { userId: "u1" });
      await db.insert("Score", { userId: "u2" });
    });
    const count = async (db: { query(entity: string): Promise<{ rows: unknown[] }> }) =>
      (await db.query("Score")).rows.length;
    const runner = runnerWith([
      [
        "gameRoom",
        room("game", {
          tickMs: 20,
          onJoin: async (ctx) => ctx.room.broadcast({ joinSees: await count(ctx.db) }),
          onMessage: async (ctx, { from, data }) =>
            ctx.room.broadcast({ from: from.userId, data, sees: await count(ctx.db) }),
          onTick: async (ctx, { count: n }) =>
            ctx.room.broadcast({ tick: n, sees: await count(ctx.db), admin: ctx.auth.isAdmin }),
        }),
      ],
    ]);
    const logic = runner.rooms().get("game");
    expect(logic?.tickMs).toBe(20);
    const room1 = handle();
    await logic?.onJoin?.(room1, member, u1);
    await logic?.onMessage?.(room1, { from: member, data: "hi" }, u1);
    await logic?.onTick?.(room1, { count: 1, now: 0 });
    expect(room1.sent).toEqual([
      { joinSees: 1 },
      { from: "u1", data: "hi", sees: 1 },
      { tick: 1, sees: 2, admin: true },
    ]);
    expect(runner.rooms().has("chat")).toBe(false);
    expect(runner.names()).toEqual([]);
  });

  it("passes ctx.error through and makes other throws FUNCTION_FAILED", async () => {
    const runner = runnerWith([
      [
        "gameRoom",
        room("game", {
          onJoin: (ctx) => ctx.error("ROOM_CLOSED", "The game has ended.", 403),
          onMessage: () => {
            throw new Error("secret");
          },
        }),
      ],
    ]);
    const logic = runner.rooms().get("game");
    await expect(logic?.onJoin?.(handle(), member, u1)).rejects.toMatchObject({
      code: "ROOM_CLOSED",
      status: 403,
      expose: true,
      message: "The game has ended.",
    });
    await expect(logic?.onMessage?.(handle(), { from: member, data: 1 }, u1)).rejects.toMatchObject(
      {
        code: "FUNCTION_FAILED",
        message: "Function gameRoom failed.",
      },
    );
  });

  it("refuses logic for an undeclared kind, or two files for one kind", () => {
    expect(() => runnerWith([["ghost", room("ghost", { onJoin: () => undefined })]])).toThrow(
      /Room logic ghost is for room kind ghost, which the manifest's rooms do not declare/,
    );
    expect(() =>
      runnerWith([
        ["a", room("chat", { onJoin: () => undefined })],
        ["b", room("chat", { onLeave: () => undefined })],
      ]),
    ).toThrow(/a and b both define the logic of room kind chat/);
  });
});
