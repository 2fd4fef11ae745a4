import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { matchTarget, testDatabases } from "@svc/tooling/databases";
import { describe, expect, it } from "vitest";
import { tempDir } from "./fixtures.js";
import { cliDatabasePerSuite, svc } from "./svc-cli.js";

const EXAMPLES = resolve(import.meta.dirname, "../../../examples");
/** Every example with a manifest: each is a create-svc template and ships policies.test.json. */
const MANIFESTS = readdirSync(EXAMPLES)
  .map((name) => join(EXAMPLES, name, "svc.json"))
  .filter((path) => {
    try {
      return readFileSync(path, "utf8").length > 0;
    } catch {
      return false;
    }
  });

describe.each(testDatabases())("svc policy test on $name", (database) => {
  const cliDatabase = cliDatabasePerSuite(database);

  it.each(MANIFESTS)("passes the access tests of %s", async (manifest) => {
    const { code, out, err } = await svc(
      "policy",
      "test",
      "--manifest",
      manifest,
      ...cliDatabase.flags(),
    );
    expect(err).toBe("");
    expect(out).toMatch(
      /^ok .*policies\.test\.json: \d+ checks pass \(evaluator, sqlite(, postgres)?\)\n$/,
    );
    expect(out).toContain(
      matchTarget(cliDatabase.target(), {
        sqlite: () => "sqlite)",
        postgres: () => "sqlite, postgres)",
      }),
    );
    expect(code).toBe(0);
  });

  it("fails, exit 1, on a widened read rule, naming the caller, the row and the rule", async () => {
    using temp = tempDir();
    const manifest = JSON.parse(readFileSync(join(EXAMPLES, "todo/svc.json"), "utf8"));
    manifest.policies[1].allowRead = "auth.userId == data.ownerId || auth.userId != null";
    writeFileSync(join(temp.path, "svc.json"), JSON.stringify(manifest));
    writeFileSync(
      join(temp.path, "policies.test.json"),
      readFileSync(join(EXAMPLES, "todo/policies.test.json")),
    );
    const { code, out } = await svc(
      "policy",
      "test",
      "--manifest",
      join(temp.path, "svc.json"),
      ...cliDatabase.flags(),
    );
    expect(code).toBe(1);
    expect(out).toContain("bob reads Todo row alicesTodo: expected deny, the policies allow");
    expect(out).toContain(
      'decided: allowed by policy "own todos" (Todo.allowRead): auth.userId != null holds',
    );
    expect(out).toMatch(/2 mismatches in 45 checks/);
    const json = await svc("policy", "test", "--manifest", join(temp.path, "svc.json"), "--json");
    expect(json.code).toBe(1);
    const report = JSON.parse(json.out) as { mismatches: { caller: string; kind: string }[] };
    expect(report.mismatches.map((m) => `${m.kind} ${m.caller}`)).toEqual([
      "expectation bob",
      "expectation guest",
    ]);
  });
});

describe("svc policy test, bad input", () => {
  it("names the file and the entry of a bad expectation, exit 1", async () => {
    using temp = tempDir();
    writeFileSync(join(temp.path, "svc.json"), readFileSync(join(EXAMPLES, "todo/svc.json")));
    const file = join(temp.path, "access.json");
    writeFileSync(
      file,
      JSON.stringify({ callers: { a: {} }, expect: [{ caller: "b", row: "x", read: "allow" }] }),
    );
    const { code, err } = await svc(
      "policy",
      "test",
      "--manifest",
      join(temp.path, "svc.json"),
      "--file",
      file,
    );
    expect(code).toBe(1);
    expect(err).toContain(`${file}: expect[0].caller: no caller named "b"`);
    expect(err).toContain(`${file}: expect[0].row: no row named "x"`);
  });

  it("says when the file is missing or not JSON, exit 1", async () => {
    using temp = tempDir();
    writeFileSync(join(temp.path, "svc.json"), readFileSync(join(EXAMPLES, "todo/svc.json")));
    const missing = await svc("policy", "test", "--manifest", join(temp.path, "svc.json"));
    expect(missing.code).toBe(1);
    expect(missing.err).toContain("policies.test.json: no such file");
    writeFileSync(join(temp.path, "policies.test.json"), "{");
    const broken = await svc("policy", "test", "--manifest", join(temp.path, "svc.json"));
    expect(broken.err).toContain("policies.test.json is not valid JSON");
  });

  it("refuses an unknown option or a non-Postgres URL", async () => {
    const unknown = await svc("policy", "test", "--nope");
    expect(unknown.code).toBe(2);
    expect(unknown.err).toContain("Usage: svc policy <command>");
    const url = await svc(
      "policy",
      "test",
      "--manifest",
      join(EXAMPLES, "todo/svc.json"),
      "--database-url",
      "mysql://x",
    );
    expect(url.code).toBe(1);
    expect(url.err).toContain("--database-url must be a postgres:// URL");
  });
});
