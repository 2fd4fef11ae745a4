import { describe, expect, it } from "vitest";
import { fixtureManifest } from "../test/fixture-manifest.js";
import { compilePolicies } from "./compile-policies.js";
import { explain } from "./explain.js";
import { createPolicyAuth, tableLookup } from "./testing.js";

const compiled = compilePolicies(
  fixtureManifest([
    {
      name: "own todos",
      entity: "Todo",
      allowRead: "auth.userId==data.ownerId",
      allowUpdate: "auth.userId == existing.ownerId && data.ownerId == existing.ownerId",
    },
    {
      name: "shared",
      entity: "Todo",
      allowRead: "exists(Member where listId == data.listId && userId == auth.userId)",
    },
  ]),
);
const u1 = createPolicyAuth({ userId: "u1" });

describe("explain", () => {
  it("shows each rule formatted and the read SQL for the chosen dialect", () => {
    const e = explain(compiled, { entity: "Todo", action: "read", auth: u1, dialect: "postgres" });
    expect(e.rules.map((rule) => rule.formatted)).toEqual([
      "auth.userId == data.ownerId",
      "exists(Member where listId == data.listId && userId == auth.userId)",
    ]);
    expect(e.rules[0]?.sql).toEqual({
      sql: 'select * from "Todo" where "ownerId" = $1',
      parameters: ["u1"],
    });
    expect(e.sql).toEqual({
      sql: 'select * from "Todo" where ("ownerId" = $1 or exists (select 1 from "Member" as "_x1" where ("_x1"."listId" = "Todo"."listId" and "_x1"."userId" = $2)))',
      parameters: ["u1", "u1"],
    });
    expect(e.verdict).toBeUndefined();
  });

  it("defaults to SQLite and says when auth alone settles the read", () => {
    const e = explain(compiled, { entity: "Todo", action: "read", auth: createPolicyAuth() });
    expect(e.sql).toBe("none");
    expect(explain(compiled, { entity: "Todo", action: "read", auth: u1 }).rules[0]?.sql).toEqual({
      sql: 'select * from "Todo" where "ownerId" = ?',
      parameters: ["u1"],
    });
  });

  it("gives the verdict and the sub-expression that settled each rule when the rows are given", () => {
    const lookup = tableLookup({ Member: [{ listId: "l1", userId: "u1" }] });
    const e = explain(compiled, {
      entity: "Todo",
      action: "read",
      auth: u1,
      data: { ownerId: "u2", listId: "l1" },
      lookup,
    });
    expect(e.rules.map((rule) => rule.outcome)).toEqual([
      { value: false, decidedBy: "auth.userId==data.ownerId", column: 1 },
      {
        value: true,
        decidedBy: "exists(Member where listId == data.listId && userId == auth.userId)",
        column: 1,
      },
    ]);
    expect(e.verdict).toEqual({
      allowed: true,
      policy: "shared",
      reason:
        'allowed by policy "shared": exists(Member where listId == data.listId && userId == auth.userId) holds',
    });
  });

  it("explains write denials without SQL", () => {
    const e = explain(compiled, {
      entity: "Todo",
      action: "update",
      auth: u1,
      data: { ownerId: "u2" },
      existing: { ownerId: "u1" },
    });
    expect(e.sql).toBeUndefined();
    expect(e.verdict).toEqual({
      allowed: false,
      policy: null,
      reason:
        'denied: no rule for Todo.allowUpdate holds ("own todos": data.ownerId == existing.ownerId is false)',
    });
    const del = explain(compiled, { entity: "Todo", action: "delete", auth: u1, existing: {} });
    expect(del.verdict?.reason).toBe("denied: no policy has a rule for Todo.allowDelete");
  });
});
