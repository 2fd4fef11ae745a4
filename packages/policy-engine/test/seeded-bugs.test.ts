import type { ManifestInput, PolicyDef } from "@svc/schema";
import { parseManifest } from "@svc/schema";
import { testDatabases } from "@svc/tooling/databases";
import { describe, expect, it } from "vitest";
import { runAccessTests } from "../src/access-tests.js";
import { checkClaim, diffPolicies, lintPolicies } from "../src/analysis.js";
import { compilePolicies } from "../src/index.js";
import { useAccessDatabase } from "./use-access-database.js";

// One manifest, its access tests and claims; each seeded bug breaks it in one
// way, and each tool that should notice does: the access tests (through the
// evaluator and SQLite), the diff against the sound version, the lint, and
// the claims.

const SOUND: PolicyDef = {
  name: "own notes",
  entity: "Note",
  allowRead: "auth.userId == data.ownerId",
  allowInsert: "auth.userId != null && data.ownerId == auth.userId",
  allowUpdate: "auth.userId == existing.ownerId && data.ownerId == existing.ownerId",
  allowDelete: "auth.userId == existing.ownerId",
};

function manifest(policy: PolicyDef, indexed = true): ManifestInput {
  return {
    manifest_version: 1,
    name: "notes",
    version: "1",
    entities: [
      {
        name: "Note",
        fields: [
          { name: "text", type: "string" },
          // Not an owner field: the rules alone keep notes apart.
          { name: "ownerId", type: "string" },
        ],
        indexes: indexed ? [{ name: "by_owner", fields: ["ownerId"], unique: false }] : [],
      },
    ],
    policies: [policy],
  };
}

const TESTS = {
  callers: { alice: { userId: "u_alice" }, bob: { userId: "u_bob" }, anonymous: {} },
  rows: { Note: { alicesNote: { text: "hi", ownerId: "u_alice" } } },
  expect: [
    { caller: "alice", row: "alicesNote", read: "allow", update: "allow", delete: "allow" },
    {
      caller: ["bob", "anonymous"],
      row: "alicesNote",
      read: "deny",
      update: "deny",
      delete: "deny",
    },
    { caller: "bob", entity: "Note", data: { ownerId: "u_bob" }, insert: "allow" },
    { caller: "bob", entity: "Note", data: { ownerId: "u_alice" }, insert: "deny" },
  ],
};

const CLAIMS = [
  "Note.read: auth.userId == data.ownerId",
  "Note.insert: data.ownerId == auth.userId",
  "Note.delete: auth.userId == existing.ownerId",
];

const BUGS = [
  {
    bug: "widened read",
    policy: { ...SOUND, allowRead: "auth.userId != null" },
    indexed: true,
    lint: [],
    claim: 0,
  },
  {
    bug: "missing owner pin",
    policy: { ...SOUND, allowInsert: "auth.userId != null" },
    indexed: true,
    lint: ["OWNER_NOT_PINNED"],
    claim: 1,
  },
  { bug: "unindexed column", policy: SOUND, indexed: false, lint: ["UNINDEXED_FILTER"], claim: -1 },
  {
    // On delete the store's read gate would contain it (only the owner sees the row); on insert nothing does.
    bug: "always-true rule",
    policy: { ...SOUND, allowInsert: "true || auth.userId != null" },
    indexed: true,
    lint: ["ALWAYS_TRUE"],
    claim: 1,
  },
] as const;

const sound = compilePolicies(parseManifest(manifest(SOUND)));

describe.each(testDatabases())("each tool catches each seeded bug ($name)", (kind) => {
  const database = useAccessDatabase(kind);

  it("the sound policies pass every tool", async () => {
    expect((await runAccessTests(sound, TESTS, { databases: [database()] })).mismatches).toEqual(
      [],
    );
    expect(lintPolicies(sound).filter((finding) => finding.level !== "info")).toEqual([]);
    for (const claim of CLAIMS) {
      const report = await checkClaim(sound, claim, { databases: [database()] });
      expect(report.holds, claim).toBe(true);
      expect(report.sql[0]?.disagreements, claim).toBe(0);
    }
  });

  it.each(BUGS)("$bug", async ({ policy, indexed, lint, claim }) => {
    const buggy = compilePolicies(parseManifest(manifest(policy, indexed)));
    const changesAccess = claim >= 0;
    const tests = await runAccessTests(buggy, TESTS, { databases: [database()] });
    expect(
      tests.mismatches.some((m) => m.kind === "expectation"),
      "access tests",
    ).toBe(changesAccess);
    expect(
      tests.mismatches.filter((m) => m.kind === "sql"),
      "SQL agrees",
    ).toEqual([]);
    expect(diffPolicies(sound, buggy).widened, "diff").toBe(changesAccess);
    const codes = lintPolicies(buggy).map((finding) => finding.code);
    expect(codes, "lint").toEqual(expect.arrayContaining([...lint]));
    for (const [index, text] of CLAIMS.entries()) {
      const report = await checkClaim(buggy, text, { databases: [database()] });
      expect(report.holds, text).toBe(index !== claim);
      expect(report.sql[0]?.disagreements, text).toBe(0);
    }
  });
});
