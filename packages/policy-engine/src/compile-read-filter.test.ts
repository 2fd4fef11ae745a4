import { describe, expect, it } from "vitest";
import { fixtureManifest, manifestWithRule } from "../test/fixture-manifest.js";
import { compilePolicies } from "./compile-policies.js";
import { compileReadFilter, type ReadFilterOptions } from "./compile-read-filter.js";
import type { PolicyAuth } from "./condition.js";
import { coldKysely } from "./explain.js";
import { createPolicyAuth } from "./testing.js";

const sqlite = coldKysely("sqlite");
const postgres = coldKysely("postgres");
const u1 = createPolicyAuth({ userId: "u1" });
const anonymous = createPolicyAuth();

/** The WHERE clause a rule compiles to on SQLite, with its parameters. */
function where(
  rule: string,
  auth: PolicyAuth = u1,
  options?: ReadFilterOptions,
  db = sqlite,
): string | { sql: string; parameters: readonly unknown[] } {
  const filter = compileReadFilter(compilePolicies(manifestWithRule(rule)), "Todo", auth, options);
  if (filter === "all" || filter === "none") return filter;
  const query = db.selectFrom("Todo").select("id").where(filter).compile();
  return {
    sql: query.sql.replace('select "id" from "Todo" where ', ""),
    parameters: query.parameters,
  };
}

describe("compileReadFilter", () => {
  it("binds auth values as parameters and puts the column first", () => {
    expect(where("auth.userId == data.ownerId")).toEqual({
      sql: '"ownerId" = ?',
      parameters: ["u1"],
    });
    expect(where("auth.userId == data.ownerId", u1, {}, postgres)).toEqual({
      sql: '"ownerId" = $1',
      parameters: ["u1"],
    });
    expect(where("'m' > data.title")).toEqual({ sql: '"title" < ?', parameters: ["m"] });
  });

  it("folds what auth settles: a null userId equals nothing, flags and roles are constants", () => {
    expect(where("auth.userId == data.ownerId", anonymous)).toBe("none");
    expect(where("auth.userId != data.ownerId", anonymous)).toBe("all");
    expect(where("auth.isAdmin", createPolicyAuth({ isAdmin: true }))).toBe("all");
    expect(where("auth.isAdmin")).toBe("none");
    expect(where("auth.isAdmin || auth.userId == data.ownerId")).toEqual({
      sql: '"ownerId" = ?',
      parameters: ["u1"],
    });
    expect(where("auth.hasRole('x') && data.done", createPolicyAuth({ roles: ["x"] }))).toEqual({
      sql: '"done"',
      parameters: [],
    });
    const pro = createPolicyAuth({ userId: "u1", entitlements: ["price_pro"] });
    expect(where("auth.hasEntitlement('price_pro')", pro)).toBe("all");
    expect(where("auth.hasEntitlement('price_pro')")).toBe("none");
    expect(where("auth.hasEntitlement('price_pro') && auth.userId == data.ownerId", pro)).toEqual({
      sql: '"ownerId" = ?',
      parameters: ["u1"],
    });
    expect(where("!auth.hasEntitlement('price_pro') || data.done", pro)).toEqual({
      sql: '"done"',
      parameters: [],
    });
    // Compared with a bool column, it becomes a test of the column, never a bound boolean.
    expect(where("data.done == auth.hasEntitlement('price_pro')")).toEqual({
      sql: 'not "done"',
      parameters: [],
    });
    expect(where("null == null")).toBe("all");
    expect(where("data.title == null")).toBe("none");
  });

  it.each([
    ["data.rank != 3", '("rank" <> ? or "rank" is null)', [3]],
    ["data.title != 'x'", '"title" <> ?', ["x"]],
    ["!(data.rank < data.score)", '("rank" >= "score" or "rank" is null or "score" is null)', []],
    ["data.listId == null", '"listId" is null', []],
    ["data.listId != null && data.rank >= 2", '("listId" is not null and "rank" >= ?)', [2]],
    ["!(data.done || data.rank == 1)", '(not "done" and ("rank" <> ? or "rank" is null))', [1]],
    ["data.done", '"done"', []],
    ["!data.flag", '(not "flag" or "flag" is null)', []],
    ["data.flag == false", 'not "flag"', []],
    ["data.flag != true", '(not "flag" or "flag" is null)', []],
    ["data.done == auth.isAdmin", 'not "done"', []],
    ["data.flag == data.done", '"flag" = "done"', []],
    ["data.rank < 1.5", '"rank" < cast(? as double precision)', [1.5]],
    ["data.score > 1e21", '"score" > cast(? as double precision)', [1e21]],
    [
      "data.createdAt < '2024-05-01T12:00:00+02:00'",
      '"createdAt" < ?',
      ["2024-05-01T10:00:00.000Z"],
    ],
  ])("compiles %j to %s", (rule, sql, parameters) => {
    expect(where(rule)).toEqual({ sql, parameters });
  });

  it("compiles exists to a correlated subquery that reaches the outer row by table name", () => {
    const rule =
      "exists(Member where listId == data.listId && userId == auth.userId && role == 'editor')";
    expect(where(rule)).toEqual({
      sql: 'exists (select 1 from "Member" as "_x1" where ("_x1"."listId" = "Todo"."listId" and "_x1"."userId" = ? and "_x1"."role" = ?))',
      parameters: ["u1", "editor"],
    });
    expect(
      where("!exists(Todo where ownerId == data.ownerId && id == data.listId)", u1, { table: "t" }),
    ).toEqual({
      sql: 'not exists (select 1 from "Todo" as "_x1" where ("_x1"."ownerId" = "t"."ownerId" and "_x1"."id" = "t"."listId"))',
      parameters: [],
    });
    expect(
      where("exists(List where id == data.listId && archived == false && tenantId == null)"),
    ).toEqual({
      sql: 'exists (select 1 from "List" as "_x1" where ("_x1"."id" = "Todo"."listId" and not "_x1"."archived" and "_x1"."tenantId" is null))',
      parameters: [],
    });
    expect(where(rule, anonymous)).toBe("none");
    expect(where("exists(Member where userId == null)")).toBe("none");
  });

  it("ORs the read rules of every policy, and denies an entity with none", () => {
    const compiled = compilePolicies(
      fixtureManifest([
        { name: "own", entity: "Todo", allowRead: "auth.userId == data.ownerId" },
        { name: "public", entity: "Todo", allowRead: "data.priority == 'high'" },
        { name: "writers", entity: "Todo", allowInsert: "true" },
      ]),
    );
    const filter = compileReadFilter(compiled, "Todo", u1);
    if (filter === "all" || filter === "none") throw new Error("expected SQL");
    expect(sqlite.selectFrom("Todo").selectAll().where(filter).compile().sql).toBe(
      'select * from "Todo" where ("ownerId" = ? or "priority" = ?)',
    );
    expect(compileReadFilter(compiled, "Todo", anonymous)).not.toBe("none");
    expect(compileReadFilter(compiled, "Secret", u1)).toBe("none");
  });
});
