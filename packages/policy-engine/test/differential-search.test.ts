import { testDatabases } from "@svc/tooling/databases";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { checkClaim } from "../src/analysis.js";
import { compilePolicies } from "../src/index.js";
import { fixtureManifest } from "./fixture-manifest.js";
import { readRule } from "./policy-arbitraries.js";
import { useAccessDatabase } from "./use-access-database.js";

// The bounded search's candidates (callers, rows built from the rules'
// literals, stored rows for their exists lookups) run through the SQL on
// each database must get the evaluator's verdict, for random rules of
// every action: what `svc policy check` runs.

const ACTIONS = ["read", "insert", "update", "delete"] as const;
type Action = (typeof ACTIONS)[number];

const ruleFor = (action: Action) =>
  fc
    .tuple(readRule, fc.array(fc.boolean(), { minLength: 64, maxLength: 64 }))
    .map(([rule, coins]) => {
      if (action === "read" || action === "insert") return rule;
      let n = 0;
      return rule.replace(/\bdata\./g, () =>
        action === "delete" || coins[n++ % coins.length] ? "existing." : "data.",
      );
    });

describe.each(testDatabases())("the search's candidates agree in SQL on $name", (kind) => {
  const database = useAccessDatabase(kind);

  it.each(ACTIONS)("for random %s rules (behind random read rules)", async (action) => {
    await fc.assert(
      fc.asyncProperty(readRule, ruleFor(action), async (read, rule) => {
        const key = {
          read: "allowRead",
          insert: "allowInsert",
          update: "allowUpdate",
          delete: "allowDelete",
        }[action];
        const compiled = compilePolicies(
          fixtureManifest([
            {
              name: "p",
              entity: "Todo",
              allowRead: read,
              ...(action !== "read" && { [key]: rule }),
            },
          ]),
        );
        const report = await checkClaim(compiled, `Todo.${action}: true`, {
          bound: 100,
          databases: [database()],
        });
        expect(report.sql[0]?.disagreements, `${read} / ${rule}`).toBe(0);
      }),
      { numRuns: Number(process.env.SVC_PROPERTY_RUNS ?? 6) },
    );
  });
});
