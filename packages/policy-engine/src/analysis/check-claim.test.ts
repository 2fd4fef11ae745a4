import type { PolicyDef } from "@svc/schema";
import { testDatabases } from "@svc/tooling/databases";
import { describe, expect, it } from "vitest";
import { brokenCompiler } from "../../test/broken-compiler.js";
import { fixtureManifest } from "../../test/fixture-manifest.js";
import { useAccessDatabase } from "../../test/use-access-database.js";
import { compilePolicies } from "../compile-policies.js";
import { PolicyError } from "../errors.js";
import { checkClaim } from "./check-claim.js";
import { formatClaimReport } from "./format-analysis.js";

const TODO: PolicyDef = {
  name: "own or shared todos",
  entity: "Todo",
  allowRead:
    "auth.userId == data.ownerId || exists(Member where listId == data.listId && userId == auth.userId)",
  allowInsert: "auth.userId != null && data.priority == 'low'",
  allowUpdate:
    "auth.userId == existing.ownerId && data.done == existing.done || auth.hasRole('editor')",
  allowDelete: "auth.userId == existing.ownerId",
};
const compiled = compilePolicies(fixtureManifest([TODO]));

describe("checkClaim in memory", () => {
  it("holds when the rules imply the claim, and says what was searched", async () => {
    const report = await checkClaim(compiled, "Todo.delete: auth.userId == existing.ownerId");
    expect(report.holds).toBe(true);
    expect(report.search.coverage.candidates).toBeGreaterThan(10);
    expect(formatClaimReport(report)).toMatch(
      /^holds: Todo.delete: auth.userId == existing.ownerId\n/,
    );
    expect(formatClaimReport(report)).toMatch(/searched \d+ callers .* bound 20000\)\n$/);
  });

  it("finds a counterexample: a list member reads a todo that is not theirs", async () => {
    const report = await checkClaim(compiled, "Todo.read: auth.userId == data.ownerId");
    expect(report.holds).toBe(false);
    const example = report.counterexample;
    expect(example?.candidate.auth.userId).toBe("u1");
    expect(example?.candidate.existing?.ownerId).not.toBe("u1");
    expect(example?.candidate.stored.Member?.[0]).toMatchObject({ userId: "u1" });
    expect(example?.reason).toContain(
      "exists(Member where listId == data.listId && userId == auth.userId) holds",
    );
    expect(example?.claimFalse).toBe("auth.userId == data.ownerId");
  });

  it("finds a role that bypasses a condition of an update", async () => {
    const report = await checkClaim(compiled, "Todo.update: data.done == existing.done");
    expect(report.holds).toBe(false);
    expect(report.counterexample?.candidate.auth.roles).toEqual(["editor"]);
  });

  it.each([
    ["Todo read: true", /expected e.g./],
    ["Todo.view: true", /the action must be one of read, insert, update, delete/],
    ["Nope.read: true", /the manifest has no entity Nope/],
    ["Todo.read: existing.ownerId == auth.userId", /existing/],
    ["Todo.read: auth.userId ==", /claim/],
  ])("refuses %s with INVALID_CLAIM", async (text, message) => {
    const run = checkClaim(compiled, text);
    await expect(run).rejects.toBeInstanceOf(PolicyError);
    await expect(run).rejects.toMatchObject({ code: "INVALID_CLAIM" });
    await expect(run).rejects.toThrow(message);
  });
});

describe.each(testDatabases())(
  "checkClaim runs every candidate through the SQL on $name",
  (kind) => {
    const database = useAccessDatabase(kind);

    it.each([
      "Todo.read: auth.userId == data.ownerId",
      "Todo.insert: data.priority == 'low'",
      "Todo.update: data.done == existing.done",
      "Todo.delete: auth.userId == existing.ownerId",
    ])("agrees with the evaluator for %s", async (claim) => {
      const report = await checkClaim(compiled, claim, { databases: [database()] });
      expect(report.sql).toHaveLength(1);
      expect(report.sql[0]?.checked).toBeGreaterThan(0);
      expect(report.sql[0]?.disagreements).toBe(0);
      expect(formatClaimReport(report)).toContain(
        `${kind.name}: the SQL agrees with the evaluator on all`,
      );
    });

    it.each([
      // Two lookups pinning one List id made two rows with that id (a primary key violation).
      [
        "delete",
        "exists(List where id == data.listId && archived == data.done) && exists(List where id == data.listId && archived == true)",
        "exists(Member where listId == existing.listId && userId == auth.userId)",
      ],
      // A lookup pinning an int column to a float (0.5) made a row no database holds.
      [
        "delete",
        "data.title == ''",
        "exists(Todo where ownerId == existing.ownerId && rank == existing.score)",
      ],
    ])(
      "builds only stored rows a database could hold (regression, %s)",
      async (action, read, rule) => {
        const policies = compilePolicies(
          fixtureManifest([{ name: "p", entity: "Todo", allowRead: read, allowDelete: rule }]),
        );
        const report = await checkClaim(policies, `Todo.${action}: true`, {
          databases: [database()],
        });
        expect(report.sql[0]?.disagreements).toBe(0);
      },
    );

    it("reports a compiler disagreement", async () => {
      const broken = { ...database(), db: database().db.withPlugin(brokenCompiler) };
      const report = await checkClaim(compiled, "Todo.read: auth.userId == data.ownerId", {
        databases: [broken],
      });
      expect(report.sql[0]?.disagreements).toBeGreaterThan(0);
      expect(formatClaimReport(report)).toContain(
        `${kind.name}: the SQL DISAGREES with the evaluator`,
      );
    });
  },
);
