import { describe, expect, it } from "vitest";
import { defineApp } from "./dsl-app.js";
import { SchemaError } from "./errors.js";
import { DEFAULT_ROOM_MAX_MEMBERS, findRoom, parseManifest } from "./manifest.js";

const base = { manifest_version: 1, name: "rooms", version: "1" } as const;

function issuesOf(input: unknown): string[] {
  try {
    parseManifest(input);
  } catch (error) {
    if (error instanceof SchemaError) return error.issues.map((issue) => issue.path);
    throw error;
  }
  throw new Error("expected the manifest to be rejected");
}

describe("manifest rooms", () => {
  it("defaults to no rooms, and fills maxMembers", () => {
    expect(parseManifest(base).rooms).toEqual([]);
    const manifest = parseManifest({
      ...base,
      rooms: [{ name: "game", join: "auth.userId != null", tickMs: 50 }],
    });
    expect(manifest.rooms).toEqual([
      {
        name: "game",
        join: "auth.userId != null",
        maxMembers: DEFAULT_ROOM_MAX_MEMBERS,
        tickMs: 50,
      },
    ]);
    expect(findRoom(manifest, "game")?.tickMs).toBe(50);
    expect(findRoom(manifest, "chat")).toBeUndefined();
  });

  it.each([
    [{ name: "a/b", join: "true" }, "rooms[0].name"],
    [{ name: "", join: "true" }, "rooms[0].name"],
    [{ name: "9lives", join: "true" }, "rooms[0].name"],
    [{ name: "game", join: "" }, "rooms[0].join"],
    [{ name: "game" }, "rooms[0].join"],
    [{ name: "game", join: "true", maxMembers: 0 }, "rooms[0].maxMembers"],
    [{ name: "game", join: "true", tickMs: 1 }, "rooms[0].tickMs"],
    [{ name: "game", join: "true", extra: 1 }, "rooms[0].extra"],
  ])("rejects %j at %s", (room, path) => {
    expect(issuesOf({ ...base, rooms: [room] })).toContain(path);
  });

  it("rejects a room kind declared twice", () => {
    const room = { name: "game", join: "true" };
    expect(issuesOf({ ...base, rooms: [room, room] })).toEqual(["rooms[1].name"]);
  });

  it("passes rooms through defineApp, omitting them when absent", () => {
    const rooms = [{ name: "chat", join: "auth.userId != null", maxMembers: 8 }];
    expect(defineApp({ name: "n", version: "1", rooms })).toStrictEqual({
      ...base,
      name: "n",
      rooms,
    });
    expect(defineApp({ name: "n", version: "1" })).not.toHaveProperty("rooms");
    expect(() =>
      defineApp({ name: "n", version: "1", rooms: [{ name: "x y", join: "true" }] }),
    ).toThrow(/rooms\[0\]\.name/);
  });
});
