import { parseManifest } from "@svc/schema";
import { thrownBy } from "@svc/tooling/thrown";
import { describe, expect, it } from "vitest";
import { fixtureEntities } from "../test/fixture-manifest.js";
import { checkJoin } from "./check-join.js";
import { compilePolicies } from "./compile-policies.js";
import type { CompiledJoinRule } from "./condition.js";
import { PolicyError } from "./errors.js";
import { tableLookup } from "./table-lookup.js";
import { createPolicyAuth } from "./testing.js";

function manifestWithRoom(join: string, policies: unknown[] = []) {
  return parseManifest({
    manifest_version: 1,
    name: "rooms",
    version: "1",
    entities: fixtureEntities,
    policies,
    rooms: [{ name: "game", join }],
  });
}

function joinRule(join: string): CompiledJoinRule {
  const rule = compilePolicies(manifestWithRoom(join)).rooms.get("game");
  if (rule === undefined) throw new Error("no join rule compiled");
  return rule;
}

function compileError(join: string, policies: unknown[] = []): PolicyError {
  return thrownBy(PolicyError, () => compilePolicies(manifestWithRoom(join, policies)));
}

const u1 = createPolicyAuth({ userId: "u1", roles: ["player"] });
const u2 = createPolicyAuth({ userId: "u2" });
const anonymous = createPolicyAuth();

describe("room join rules", () => {
  it.each([
    ["auth.userId != null", u1, "k", true],
    ["auth.userId != null", anonymous, "k", false],
    ["auth.hasRole('player')", u1, null, true],
    ["auth.hasRole('player')", u2, null, false],
    ["room.key == auth.userId", u1, "u1", true],
    ["room.key == auth.userId", u2, "u1", false],
    ["room.key == null", u2, null, true],
    ["room.key == null", u2, "k", false],
    ["room.name == 'game' && room.key != 'closed'", u2, "open", true],
    ["room.name == 'game' && room.key != 'closed'", u2, "closed", false],
  ])("%s for %j in key %s is %s", async (join, auth, key, expected) => {
    expect(await checkJoin(joinRule(join), { auth, name: "game", key })).toBe(expected);
  });

  it("answers exists(...) through the resolver", async () => {
    const rule = joinRule("exists(Member where listId == room.key && userId == auth.userId)");
    const lookup = tableLookup({
      Member: [{ userId: "u1", listId: "a".repeat(40), role: "viewer" }],
    });
    const resolve = async (...args: Parameters<typeof lookup>) => lookup(...args);
    const request = { name: "game", key: "a".repeat(40) };
    expect(await checkJoin(rule, { ...request, auth: u1 }, resolve)).toBe(true);
    expect(await checkJoin(rule, { ...request, auth: u2 }, resolve)).toBe(false);
    await expect(checkJoin(rule, { ...request, auth: u1 })).rejects.toMatchObject({
      code: "EXISTS_UNRESOLVED",
    });
  });

  it.each([
    ["data.title == 'x'", "data is not available in a join rule"],
    ["existing.title == 'x'", "existing is not available in a join rule"],
    ["room.kind == 'x'", "unknown room.kind (room has name and key)"],
    ["room.key == 1", "cannot compare string room.key with number 1"],
    ["auth.userId ==", 'room "game" (join):'],
  ])("refuses %s at compile time", (join, message) => {
    const error = compileError(join);
    expect(error.code).toBe("INVALID_POLICIES");
    expect(error.message).toContain(message);
    expect(error.issues[0]?.room).toBe("game");
  });

  it("refuses room.* in an entity policy", () => {
    const error = compileError("true", [
      { name: "p", entity: "Todo", allowRead: "room.key == 'x'" },
    ]);
    expect(error.message).toContain(
      `policy "p" (Todo.allowRead): room is available only in a room's join rule at 1`,
    );
  });

  it("compiles no rule for a manifest without rooms", () => {
    const manifest = parseManifest({ manifest_version: 1, name: "n", version: "1" });
    expect(compilePolicies(manifest).rooms.size).toBe(0);
  });
});
