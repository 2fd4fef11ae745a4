import { testDatabases } from "@svc/tooling/databases";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { withScratchTables } from "../src/access-tests.js";
import {
  type CompiledPolicies,
  compilePolicies,
  evaluateAccess,
  type PolicyAuth,
  type PolicyRow,
} from "../src/index.js";
import { createPolicyAuth, tableLookup } from "../src/testing.js";
import { fixtureManifest } from "./fixture-manifest.js";
import { auth, type Dataset, dataset, readRule } from "./policy-arbitraries.js";
import { useAccessDatabase } from "./use-access-database.js";

// compileAccessFilter (the SQL of insert, update and delete rules, with
// `data` and `existing` in tables of their own) against the evaluator, on
// random well-typed rules, rows and callers: what `svc policy test`,
// `check` and `diff` run on each database.

type WriteAction = "insert" | "update" | "delete";

/** A read rule turned into a rule of `action`: some `data.` become `existing.` (update), all do (delete). */
const writeRule = (action: WriteAction): fc.Arbitrary<string> =>
  fc
    .tuple(readRule, fc.array(fc.boolean(), { minLength: 64, maxLength: 64 }))
    .map(([rule, coins]) => {
      if (action === "insert") return rule;
      let n = 0;
      return rule.replace(/\bdata\./g, () =>
        action === "delete" || coins[n++ % coins.length] ? "existing." : "data.",
      );
    });

function compileRule(action: WriteAction, rule: string): CompiledPolicies {
  const key = { insert: "allowInsert", update: "allowUpdate", delete: "allowDelete" }[action];
  // Everyone reads, so the read gate in front of updates and deletes lets every row through.
  return compilePolicies(
    fixtureManifest([{ name: "p", entity: "Todo", allowRead: "true", [key]: rule }]),
  );
}

interface Candidate {
  readonly key: string;
  readonly data?: PolicyRow;
  readonly existing?: PolicyRow;
}

function candidates(action: WriteAction, data: Dataset): Candidate[] {
  const todos = data.Todo;
  if (action === "delete") return todos.map((existing, i) => ({ key: `k${i}`, existing }));
  if (action === "insert")
    return todos.map((row, i) => ({ key: `k${i}`, data: { ...row, id: "f".repeat(40) } }));
  return todos.flatMap((existing, i) =>
    todos.map((row, j) => ({ key: `k${i}_${j}`, existing, data: { ...row, id: existing.id } })),
  );
}

describe.each(testDatabases())("write rules in SQL agree with the evaluator on $name", (kind) => {
  const database = useAccessDatabase(kind);

  async function agree(action: WriteAction, data: Dataset, rule: string, who: PolicyAuth) {
    const compiled = compileRule(action, rule);
    const lookup = tableLookup(data);
    const all = candidates(action, data);
    const expected = all
      .filter(
        (candidate) =>
          evaluateAccess(compiled, {
            entity: "Todo",
            action,
            auth: who,
            lookup,
            ...(candidate.data !== undefined && { data: candidate.data }),
            ...(candidate.existing !== undefined && { existing: candidate.existing }),
          }).allowed,
      )
      .map((candidate) => candidate.key)
      .sort();
    const actual = await withScratchTables(database(), compiled, async (scratch) => {
      await scratch.load(data);
      const allowed = await scratch.writable(
        "Todo",
        action,
        who,
        all.map((candidate) => ({
          key: candidate.key,
          ...(candidate.data !== undefined && { data: candidate.data }),
          ...(candidate.existing !== undefined && { existingId: String(candidate.existing.id) }),
        })),
      );
      return [...allowed].sort();
    });
    expect(actual, `${action}: ${rule}`).toEqual(expected);
  }

  it.each(["insert", "update", "delete"] as const)("for random %s rules", async (action) => {
    await fc.assert(
      fc.asyncProperty(dataset, writeRule(action), auth, (data, rule, who) =>
        agree(action, data, rule, who),
      ),
      { numRuns: Number(process.env.SVC_PROPERTY_RUNS ?? 60) },
    );
  });

  it("for an update that compares the new row with the stored one", async () => {
    const data: Dataset = {
      Todo: [
        {
          id: "a".repeat(40),
          title: "x",
          done: false,
          ownerId: "u1",
          priority: "low",
          createdAt: "2024-05-01T10:00:00.000Z",
        },
        {
          id: "b".repeat(40),
          title: "y",
          done: true,
          ownerId: "u2",
          priority: "high",
          createdAt: "2024-05-01T10:00:00.001Z",
        },
      ],
      List: [],
      Member: [],
    };
    for (const rule of [
      "auth.userId == existing.ownerId && data.ownerId == existing.ownerId",
      "data.createdAt > existing.createdAt || data.title < existing.title",
      "data.done != existing.done && exists(Todo where ownerId == data.ownerId)",
    ]) {
      await agree("update", data, rule, createPolicyAuth({ userId: "u1" }));
    }
  });
});
