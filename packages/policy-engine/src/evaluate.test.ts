import { describe, expect, it, vi } from "vitest";
import { fixtureManifest, manifestWithRule } from "../test/fixture-manifest.js";
import { checkAccess, evaluateAccess } from "./check-access.js";
import { compilePolicies, rulesFor } from "./compile-policies.js";
import type { CompiledRule, PolicyAuth, PolicyRow } from "./condition.js";
import { type ExistsLookup, evaluate, evaluateRule } from "./evaluate.js";
import { tableLookup } from "./table-lookup.js";
import { createPolicyAuth } from "./testing.js";

function rule(source: string, action: "allowRead" | "allowUpdate" = "allowRead"): CompiledRule {
  const compiled = compilePolicies(manifestWithRule(source, action));
  const [only] = rulesFor(compiled, "Todo", action === "allowRead" ? "read" : "update");
  if (only === undefined) throw new Error("no rule compiled");
  return only;
}

const anonymous = createPolicyAuth();
const u1 = createPolicyAuth({ userId: "u1", roles: ["editor"] });

function run(
  source: string,
  data: PolicyRow,
  auth: PolicyAuth = anonymous,
  lookup?: ExistsLookup,
): boolean {
  return evaluate(rule(source), { auth, data, ...(lookup ? { lookup } : {}) });
}

describe("evaluate: comparisons with nulls (two-valued)", () => {
  const pairs: [number | null, number | null][] = [
    [null, null],
    [null, 1],
    [1, null],
    [1, 1],
    [1, 2],
    [2, 1],
  ];
  const expected: Record<string, boolean[]> = {
    "==": [false, false, false, true, false, false],
    "!=": [true, true, true, false, true, true],
    "<": [false, false, false, false, true, false],
    "<=": [false, false, false, true, true, false],
    ">": [false, false, false, false, false, true],
    ">=": [false, false, false, true, false, true],
  };
  it.each(Object.entries(expected))("data.rank %s data.score over (null|1|2)²", (op, row) => {
    const got = pairs.map(([rank, score]) => run(`data.rank ${op} data.score`, { rank, score }));
    expect(got).toEqual(row);
  });

  it.each([
    ["data.rank == null", { rank: null }, true],
    ["data.rank == null", {}, true],
    ["data.rank == null", { rank: 0 }, false],
    ["data.rank != null", { rank: 0 }, true],
    ["data.rank != null", {}, false],
    ["null == data.rank", {}, true],
    ["null == null", {}, true],
    ["null != null", {}, false],
    ["data.note == data.note", {}, false],
    ["data.note != data.note", {}, true],
    ["data.note == data.note", { note: "" }, true],
  ])("%s with %j is %s", (source, data, value) => {
    expect(run(source, data)).toBe(value);
  });

  it("an anonymous caller's userId is null, so it equals no owner and differs from every owner", () => {
    expect(run("auth.userId == data.ownerId", { ownerId: "u1" })).toBe(false);
    expect(run("auth.userId == data.ownerId", { ownerId: null })).toBe(false);
    expect(run("auth.userId != data.ownerId", { ownerId: "u1" })).toBe(true);
    expect(run("auth.userId == null", {})).toBe(true);
    expect(run("auth.userId == data.ownerId", { ownerId: "u1" }, u1)).toBe(true);
  });

  it("an auth id no database could store counts as null", () => {
    const odd = createPolicyAuth({ userId: "u\u0000" });
    expect(run("auth.userId == null", {}, odd)).toBe(true);
  });
});

describe("evaluate: booleans", () => {
  it.each([
    ["data.flag", { flag: true }, true],
    ["data.flag", { flag: false }, false],
    ["data.flag", { flag: null }, false],
    ["!data.flag", { flag: null }, true],
    ["data.flag == false", { flag: null }, false],
    ["data.flag != true", { flag: null }, true],
    ["data.flag == data.done", { flag: false, done: false }, true],
    ["data.done", { done: 1 }, true],
    ["data.done", { done: 0 }, false],
    ["!data.done || data.done", {}, true],
  ])("%s with %j is %s", (source, data, value) => {
    expect(run(source, data)).toBe(value);
  });

  it("reads isAdmin, isGuest and hasRole from auth", () => {
    expect(run("auth.isAdmin", {}, createPolicyAuth({ isAdmin: true }))).toBe(true);
    expect(run("auth.isGuest", {}, anonymous)).toBe(false);
    expect(run("auth.hasRole('editor')", {}, u1)).toBe(true);
    expect(run("auth.hasRole('admin')", {}, u1)).toBe(false);
    expect(run("auth.hasRole('editor') == true && !auth.isAdmin", {}, u1)).toBe(true);
  });

  it("reads hasEntitlement from auth: true only for an id the caller holds", () => {
    const pro = createPolicyAuth({ userId: "u1", entitlements: ["price_pro", "prod_pro"] });
    expect(run("auth.hasEntitlement('price_pro')", {}, pro)).toBe(true);
    expect(run("auth.hasEntitlement('prod_pro')", {}, pro)).toBe(true);
    expect(run("auth.hasEntitlement('price_team')", {}, pro)).toBe(false);
    expect(run("auth.hasEntitlement('price_pro')", {}, u1)).toBe(false);
    expect(run("auth.hasEntitlement('price_pro')", {}, anonymous)).toBe(false);
    // Entitlements and roles are separate lists.
    expect(run("auth.hasEntitlement('editor')", {}, u1)).toBe(false);
    expect(run("auth.hasRole('price_pro')", {}, pro)).toBe(false);
    expect(run("data.done == auth.hasEntitlement('price_pro')", { done: true }, pro)).toBe(true);
    expect(run("data.done != auth.hasEntitlement('price_pro')", { done: true }, u1)).toBe(true);
  });
});

describe("evaluate: text, numbers and date-times", () => {
  it("orders text by code point, as SQLite and Postgres' C collation do", () => {
    // JavaScript's < says "\uFFFF" > "😀" (it compares UTF-16 units); UTF-8 order says less.
    expect(run("data.title < '😀'", { title: "\uFFFF" })).toBe(true);
    expect(run("data.title < 'b'", { title: "B" })).toBe(true);
    expect(run("data.title < 'ab'", { title: "a" })).toBe(true);
  });

  it("compares ints and floats as numbers", () => {
    expect(run("data.rank == 2.0", { rank: 2 })).toBe(true);
    expect(run("data.rank < 2.5", { rank: 2 })).toBe(true);
    expect(run("data.score >= -1e-7", { score: 0 })).toBe(true);
  });

  it("compares date-times by instant, whatever zone they were written in", () => {
    const source = "data.createdAt < '2024-05-01T12:00:00+02:00'";
    expect(run(source, { createdAt: "2024-05-01T09:59:59.999Z" })).toBe(true);
    expect(run(source, { createdAt: "2024-05-01T10:00:00.000Z" })).toBe(false);
    expect(run(source, { createdAt: "2024-05-01T11:00:00+02:00" })).toBe(true);
    expect(run(source, { createdAt: new Date("2024-05-01T09:00:00Z") })).toBe(true);
    expect(run("data.dueAt < data.createdAt", { createdAt: "2024-05-01T10:00:00.000Z" })).toBe(
      false,
    );
  });

  it("a value of the wrong JavaScript type equals nothing", () => {
    expect(run("data.title == '1'", { title: 1 })).toBe(false);
    expect(run("data.rank == 1", { rank: "1" })).toBe(false);
    expect(run("data.rank < 2", { rank: "1" })).toBe(false);
  });
});

describe("evaluate: exists", () => {
  const members = tableLookup({
    Member: [
      { id: "m1", userId: "u1", listId: "l1", role: "editor" },
      { id: "m2", userId: "u2", listId: "l1", role: "viewer" },
    ],
  });
  const canEdit =
    "exists(Member where listId == data.listId && userId == auth.userId && role == 'editor')";

  it("finds a matching row of the other entity", () => {
    expect(run(canEdit, { listId: "l1" }, u1, members)).toBe(true);
    expect(run(canEdit, { listId: "l2" }, u1, members)).toBe(false);
    expect(run(canEdit, { listId: "l1" }, createPolicyAuth({ userId: "u2" }), members)).toBe(false);
  });

  it("a null value (not the literal) matches no row and asks nothing", () => {
    const lookup = vi.fn<ExistsLookup>(() => true);
    expect(run(canEdit, { listId: null }, u1, lookup)).toBe(false);
    expect(run(canEdit, { listId: "l1" }, anonymous, lookup)).toBe(false);
    expect(lookup).not.toHaveBeenCalled();
  });

  it("hands the lookup each condition with its field kind; the literal null asks for a null field", () => {
    const lookup = vi.fn<ExistsLookup>(() => true);
    expect(
      run("exists(List where id == data.listId && tenantId == null)", { listId: "l1" }, u1, lookup),
    ).toBe(true);
    expect(lookup).toHaveBeenCalledWith("List", [
      { field: "id", type: "id", value: "l1" },
      { field: "tenantId", type: "string", value: null },
    ]);
    const lists = tableLookup({
      List: [
        { id: "l1", tenantId: null },
        { id: "l2", tenantId: "t1" },
      ],
    });
    expect(
      run("exists(List where id == data.listId && tenantId == null)", { listId: "l2" }, u1, lists),
    ).toBe(false);
  });

  it("short-circuits: a rule settled before its exists never asks", () => {
    const lookup = vi.fn<ExistsLookup>(() => true);
    expect(
      run(
        `auth.isAdmin || ${canEdit}`,
        { listId: "l1" },
        createPolicyAuth({ userId: "u1", isAdmin: true }),
        lookup,
      ),
    ).toBe(true);
    expect(lookup).not.toHaveBeenCalled();
  });

  it("throws EXISTS_UNRESOLVED when an exists is reached without a lookup", () => {
    expect(() => run(canEdit, { listId: "l1" }, u1)).toThrowError(
      expect.objectContaining({ code: "EXISTS_UNRESOLVED" }),
    );
  });
});

describe("evaluateRule", () => {
  it.each([
    [
      "auth.userId == data.ownerId && !data.done",
      { ownerId: "u1", done: true },
      false,
      "!data.done",
    ],
    [
      "auth.userId == data.ownerId && !data.done",
      { ownerId: "u2", done: false },
      false,
      "auth.userId == data.ownerId",
    ],
    [
      "auth.isAdmin || auth.userId == data.ownerId",
      { ownerId: "u1" },
      true,
      "auth.userId == data.ownerId",
    ],
    // Every operand of a false || mattered, so the whole || is the reason.
    ["auth.isAdmin || auth.isGuest", {}, false, "auth.isAdmin || auth.isGuest"],
    ["data.done && data.rank == 1", { done: true, rank: 1 }, true, "data.done && data.rank == 1"],
  ])("%s with %j is %s, settled by %s", (source, data, value, decidedBy) => {
    const compiled = rule(source);
    const outcome = evaluateRule(compiled, { auth: u1, data });
    expect(outcome.value).toBe(value);
    expect(compiled.source.slice(outcome.decidedBy.expr.start, outcome.decidedBy.expr.end)).toBe(
      decidedBy,
    );
  });

  it("sees data and existing on updates", () => {
    const compiled = rule(
      "existing.ownerId == auth.userId && data.ownerId == existing.ownerId",
      "allowUpdate",
    );
    expect(
      evaluate(compiled, { auth: u1, data: { ownerId: "u1" }, existing: { ownerId: "u1" } }),
    ).toBe(true);
    expect(
      evaluate(compiled, { auth: u1, data: { ownerId: "u2" }, existing: { ownerId: "u1" } }),
    ).toBe(false);
  });
});

describe("evaluateAccess and checkAccess", () => {
  const compiled = compilePolicies(
    fixtureManifest([
      {
        name: "own",
        entity: "Todo",
        allowRead: "auth.userId == data.ownerId",
        allowUpdate: "auth.userId == existing.ownerId",
      },
      {
        name: "shared",
        entity: "Todo",
        allowRead: "exists(Member where listId == data.listId && userId == auth.userId)",
      },
    ]),
  );

  it("allows when any policy allows (OR) and names the first that did", () => {
    const lookup = tableLookup({ Member: [{ userId: "u1", listId: "l1", role: "viewer" }] });
    const read = (data: PolicyRow) =>
      evaluateAccess(compiled, { entity: "Todo", action: "read", auth: u1, data, lookup });
    expect(read({ ownerId: "u1", listId: "l9" })).toEqual({ allowed: true, policy: "own" });
    expect(read({ ownerId: "u2", listId: "l1" })).toEqual({ allowed: true, policy: "shared" });
    expect(read({ ownerId: "u2", listId: "l2" })).toEqual({ allowed: false, policy: null });
  });

  it("denies an action no policy has a rule for", () => {
    expect(
      evaluateAccess(compiled, {
        entity: "Todo",
        action: "delete",
        auth: u1,
        existing: { ownerId: "u1" },
      }),
    ).toEqual({
      allowed: false,
      policy: null,
    });
    expect(
      evaluateAccess(compiled, { entity: "Secret", action: "read", auth: u1, data: {} }).allowed,
    ).toBe(false);
  });

  it("checkAccess awaits the resolver for each exists it reaches", async () => {
    const resolve = vi.fn(async () => true);
    const shared = await checkAccess(
      compiled,
      { entity: "Todo", action: "read", auth: u1, data: { ownerId: "u2", listId: "l1" } },
      resolve,
    );
    expect(shared).toEqual({ allowed: true, policy: "shared" });
    expect(resolve).toHaveBeenCalledWith("Member", [
      { field: "listId", type: "id", value: "l1" },
      { field: "userId", type: "string", value: "u1" },
    ]);
    resolve.mockClear();
    const own = await checkAccess(
      compiled,
      { entity: "Todo", action: "update", auth: u1, data: {}, existing: { ownerId: "u1" } },
      resolve,
    );
    expect(own).toEqual({ allowed: true, policy: "own" });
    expect(resolve).not.toHaveBeenCalled();
  });
});
