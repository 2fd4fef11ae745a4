import { type TestDatabaseTarget, testDatabases } from "@svc/tooling/databases";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type CompiledPolicies,
  compilePolicies,
  compileReadFilter,
  evaluateAccess,
  type PolicyAuth,
} from "../src/index.js";
import { createPolicyAuth, tableLookup } from "../src/testing.js";
import { fixtureManifest } from "./fixture-manifest.js";
import { auth, type Dataset, dataset, readRule } from "./policy-arbitraries.js";
import { openFixture, type SqlFixture } from "./sql-fixture.js";

/** The Todo ids the SQL filter lets through. */
async function sqlVerdict(
  fixture: SqlFixture,
  compiled: CompiledPolicies,
  who: PolicyAuth,
): Promise<string[]> {
  const filter = compileReadFilter(compiled, "Todo", who);
  if (filter === "none") return [];
  let query = fixture.db.selectFrom("Todo").select("id");
  if (filter !== "all") query = query.where(filter);
  const rows = await query.execute();
  return rows.map((row) => String(row.id)).sort();
}

/** The Todo ids the reference evaluator lets through. */
function evaluatorVerdict(data: Dataset, compiled: CompiledPolicies, who: PolicyAuth): string[] {
  const lookup = tableLookup(data);
  return data.Todo.filter(
    (row) =>
      evaluateAccess(compiled, { entity: "Todo", action: "read", auth: who, data: row, lookup })
        .allowed,
  )
    .map((row) => String(row.id))
    .sort();
}

function compileRules(rules: readonly string[]): CompiledPolicies {
  return compilePolicies(
    fixtureManifest(rules.map((rule, i) => ({ name: `p${i}`, entity: "Todo", allowRead: rule }))),
  );
}

const ID = (c: string): string => c.repeat(40);
const row = (id: string, fields: Record<string, unknown>): Record<string, unknown> => ({
  id: ID(id),
  title: "",
  done: false,
  ownerId: "u1",
  priority: "low",
  createdAt: "2024-05-01T10:00:00.000Z",
  ...fields,
});

/** Rows at the edges the random datasets reach only by luck. */
const EDGE_DATA: Dataset = {
  Todo: [
    row("a", { title: "\uFFFF", rank: 9007199254740991, score: 0.30000000000000004, flag: null }),
    row("b", { title: "😀", rank: 1, score: 1e21, flag: true, listId: ID("a"), ownerId: "u2" }),
    row("c", {
      title: "b",
      rank: null,
      score: 1.5,
      flag: false,
      dueAt: "2024-05-01T10:00:00.000Z",
    }),
    row("d", {
      title: "B",
      rank: 2,
      score: null,
      createdAt: "2024-05-01T09:59:59.999Z",
      listId: ID("d"),
    }),
    row("e", { title: "é", rank: -3, score: -1e-7, ownerId: "" }),
    row("f", { title: "e\u0301", rank: 0, score: 0, note: "", done: true }),
  ],
  List: [{ id: ID("a"), title: "l", ownerId: "u1", tenantId: null, archived: false }],
  Member: [{ id: ID("a"), userId: "u1", listId: ID("a"), role: "editor" }],
};

const EDGE_RULES = [
  // Code point order: JavaScript's < puts "\uFFFF" after "😀", UTF-8 order before.
  "data.title < '😀'",
  "data.title > '\uFFFF'",
  "data.title < 'b'",
  "data.title == 'é'",
  "data.rank < 1.5",
  "data.rank == 9007199254740992",
  "data.rank >= 9007199254740991",
  "data.score > 1e21",
  "data.score == 0.30000000000000004",
  "data.rank < data.score",
  "!(data.rank < data.score)",
  "data.createdAt < '2024-05-01T12:00:00+02:00'",
  "data.dueAt != '2024-05-01T10:00:00Z'",
  "!data.flag",
  "data.flag != true",
  "data.note == ''",
  "auth.userId == data.ownerId",
  "auth.userId != data.ownerId",
  "exists(Todo where ownerId == data.ownerId && id == data.listId)",
  "exists(Member where listId == data.listId && userId == auth.userId)",
  "!exists(List where id == data.listId && archived == false && tenantId == null)",
  "auth.hasEntitlement('price_pro') && auth.userId == data.ownerId",
  "!auth.hasEntitlement('price_pro') && data.done",
  "data.flag == auth.hasEntitlement('price_pro')",
  "data.flag != auth.hasEntitlement('price_pro')",
  "auth.hasEntitlement('x') || auth.hasRole('x')",
  "exists(List where id == data.listId && archived == auth.hasEntitlement('price_pro'))",
];

describe.each(testDatabases())(
  "the SQL read filter agrees with the evaluator on $name",
  (database) => {
    let target: TestDatabaseTarget;
    let fixture: SqlFixture;

    beforeAll(async () => {
      target = await database.create();
      fixture = await openFixture(target);
    });

    afterAll(async () => {
      await fixture?.close();
      if (target !== undefined) await database.destroy(target);
    });

    async function agree(data: Dataset, rules: readonly string[], who: PolicyAuth): Promise<void> {
      const compiled = compileRules(rules);
      await fixture.load(data);
      expect(await sqlVerdict(fixture, compiled, who)).toEqual(
        evaluatorVerdict(data, compiled, who),
      );
    }

    it.each(EDGE_RULES)("for the edge rows, on %s", async (rule) => {
      for (const who of [
        createPolicyAuth(),
        createPolicyAuth({ userId: "u1" }),
        createPolicyAuth({ userId: "" }),
        createPolicyAuth({ userId: "u1", entitlements: ["price_pro"] }),
        createPolicyAuth({ roles: ["x"], entitlements: ["prod_team"] }),
      ]) {
        await agree(EDGE_DATA, [rule], who);
      }
    });

    it("for random well-typed rules, rows and callers", async () => {
      await fc.assert(
        fc.asyncProperty(
          dataset,
          fc.array(readRule, { minLength: 1, maxLength: 2 }),
          auth,
          (data, rules, who) => agree(data, rules, who),
        ),
        { numRuns: Number(process.env.SVC_PROPERTY_RUNS ?? 200) },
      );
    });
  },
);
