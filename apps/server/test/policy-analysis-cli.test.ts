import { readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { matchTarget, testDatabases } from "@svc/tooling/databases";
import { describe, expect, it } from "vitest";
import { tempDir } from "./fixtures.js";
import { cliDatabasePerSuite, svc } from "./svc-cli.js";

const EXAMPLES = resolve(import.meta.dirname, "../../../examples");
const TODO = join(EXAMPLES, "todo/svc.json");
const CONSUMER = join(EXAMPLES, "consumer/svc.json");

type ManifestJSON = {
  entities: { name: string; fields: { name: string; owner?: boolean }[]; indexes?: unknown[] }[];
  policies: Record<string, string>[];
};

/** A copy of an example's manifest, changed by `edit`, in `dir`. */
function edited(dir: string, from: string, edit: (manifest: ManifestJSON) => void): string {
  const manifest = JSON.parse(readFileSync(from, "utf8")) as ManifestJSON;
  edit(manifest);
  const path = join(dir, "svc.json");
  writeFileSync(path, JSON.stringify(manifest));
  return path;
}

const widenTodoRead = (manifest: ManifestJSON) => {
  const own = manifest.policies.find((policy) => policy.entity === "Todo");
  if (own !== undefined) own.allowRead = "auth.userId != null";
};

describe("svc policy diff", () => {
  it("exits 1 when access widened, with a witness (the seeded widened read), against a git ref", async () => {
    using temp = tempDir();
    const next = edited(temp.path, TODO, widenTodoRead);
    const { code, out } = await svc("policy", "diff", "git:HEAD:examples/todo/svc.json", next);
    expect(code).toBe(1);
    expect(out).toContain("Todo.allowRead: widened");
    expect(out).toContain('admitted now, refused before: caller {"userId":"u1"}');
    expect(out).toContain(
      'before: denied: policy "own todos" (Todo.allowRead): auth.userId == data.ownerId is false',
    );
    expect(out).toContain(
      'after:  allowed by policy "own todos" (Todo.allowRead): auth.userId != null holds',
    );
    expect(out).toMatch(/searched \d+ callers .*exhaustive/);
    expect((await svc("policy", "diff", TODO, next, "--allow-widening")).code).toBe(0);
  });

  it("prints JSON, says when nothing changed, and reports a narrowing without failing", async () => {
    using temp = tempDir();
    const same = await svc("policy", "diff", TODO, TODO);
    expect(same).toMatchObject({
      code: 0,
      out: "no access changed; 12 entity actions the same (12 with unchanged rules, 0 searched)\n",
    });
    const narrower = edited(temp.path, TODO, (manifest) => {
      const own = manifest.policies.find((policy) => policy.entity === "Todo");
      if (own !== undefined) own.allowDelete = "auth.userId == existing.ownerId && existing.done";
    });
    const json = await svc("policy", "diff", TODO, narrower, "--json");
    expect(json.code).toBe(0);
    const diff = JSON.parse(json.out) as {
      widened: boolean;
      actions: { entity: string; action: string; change: string }[];
    };
    expect(diff.widened).toBe(false);
    expect(diff.actions.filter((item) => item.change !== "same")).toEqual([
      expect.objectContaining({ entity: "Todo", action: "delete", change: "narrowed" }),
    ]);
  });

  it("refuses a bad git source or missing arguments", async () => {
    const bad = await svc("policy", "diff", "git:no-such-ref-xyz:svc.json", TODO);
    expect(bad.code).toBe(1);
    expect(bad.err).toContain("cannot read git:no-such-ref-xyz:svc.json");
    const option = await svc("policy", "diff", "git:--output=x:svc.json", TODO);
    expect(option.err).toContain("expected git:<ref>:<path>");
    expect((await svc("policy", "diff", TODO)).code).toBe(2);
  });
});

describe("svc policy lint", () => {
  it("passes every template at the default level", async () => {
    for (const name of ["default", "todo", "chat", "ai-chat", "shop", "waitlist", "consumer"]) {
      const { code, out } = await svc(
        "policy",
        "lint",
        "--manifest",
        join(EXAMPLES, name, "svc.json"),
      );
      expect(out, name).toMatch(/0 errors, 0 warnings, \d+ notes\n$/);
      expect(code, name).toBe(0);
    }
  });

  it("catches a missing owner pin, an always-true rule and an unindexed column (the seeded bugs)", async () => {
    using temp = tempDir();
    const manifest = edited(temp.path, TODO, (m) => {
      const todo = m.entities.find((entity) => entity.name === "Todo");
      const owner = todo?.fields.find((field) => field.name === "ownerId");
      if (owner !== undefined) owner.owner = false;
      if (todo !== undefined) todo.indexes = [];
      const own = m.policies.find((policy) => policy.entity === "Todo");
      if (own !== undefined) own.allowDelete = "auth.userId == existing.ownerId || true";
    });
    const { code, out } = await svc("policy", "lint", "--manifest", manifest);
    expect(code).toBe(1);
    expect(out).toContain("error OWNER_NOT_PINNED Todo.allowInsert");
    expect(out).toContain("error ALWAYS_TRUE Todo.allowDelete");
    expect(out).toContain("warning UNINDEXED_FILTER Todo.allowRead");
    expect(out).toContain(
      `add to Todo's indexes: {"name":"by_ownerId","fields":["ownerId"],"unique":false}`,
    );
    expect((await svc("policy", "lint", "--manifest", manifest, "--fail-on", "never")).code).toBe(
      0,
    );
    const json = JSON.parse(
      (await svc("policy", "lint", "--manifest", manifest, "--json")).out,
    ) as {
      findings: { code: string }[];
    };
    expect(json.findings.map((finding) => finding.code)).toEqual(
      expect.arrayContaining(["OWNER_NOT_PINNED", "ALWAYS_TRUE", "UNINDEXED_FILTER"]),
    );
  });

  it("refuses a bad --fail-on", async () => {
    expect((await svc("policy", "lint", "--manifest", TODO, "--fail-on", "loud")).code).toBe(2);
  });
});

describe.each(testDatabases())("svc policy check and lint --measure on $name", (database) => {
  const cliDatabase = cliDatabasePerSuite(database);

  it("finds a counterexample, runs every candidate through the SQL and states the domain", async () => {
    const { code, out } = await svc(
      "policy",
      "check",
      "--manifest",
      CONSUMER,
      "--claim",
      "Project.delete: existing.createdBy == auth.userId",
      "--claim",
      "Project.update: data.orgId == existing.orgId",
      ...cliDatabase.flags(),
    );
    expect(code).toBe(1);
    expect(out).toContain("counterexample (");
    expect(out).toContain('caller {"userId":"u1","tenantId":"t1","roles":["owner"]}');
    expect(out).toContain("holds: Project.update: data.orgId == existing.orgId");
    expect(out).toMatch(/sqlite: the SQL agrees with the evaluator on all \d+ candidates/);
    matchTarget(cliDatabase.target(), {
      sqlite: () => undefined,
      postgres: () =>
        expect(out).toMatch(/postgres: the SQL agrees with the evaluator on all \d+ candidates/),
    });
    expect(out).toMatch(
      /searched \d+ callers \(userId null, "u1"; tenantId null, "t1"; roles ⊆ \{owner\}/,
    );
    expect(out).toMatch(/bound 20000\)/);
  });

  it("exits 0 when every claim holds, and 2 without a claim", async () => {
    const holds = await svc(
      "policy",
      "check",
      "--manifest",
      TODO,
      "--claim",
      "Todo.read: auth.userId == data.ownerId",
      ...cliDatabase.flags(),
    );
    expect(holds.code).toBe(0);
    expect(holds.out).toMatch(/^holds: Todo.read/);
    expect((await svc("policy", "check", "--manifest", TODO)).code).toBe(2);
    const invalid = await svc(
      "policy",
      "check",
      "--manifest",
      TODO,
      "--claim",
      "Todo.read: data.nope",
    );
    expect(invalid.code).toBe(1);
    expect(invalid.err).toContain("unknown field data.nope");
  });

  it("measures an advised index on a seeded table", async () => {
    using temp = tempDir();
    const manifest = edited(temp.path, TODO, (m) => {
      const todo = m.entities.find((entity) => entity.name === "Todo");
      if (todo !== undefined) todo.indexes = [];
    });
    const { out } = await svc(
      "policy",
      "lint",
      "--manifest",
      manifest,
      "--measure",
      "--rows",
      "2000",
      ...cliDatabase.flags(),
    );
    expect(out).toMatch(
      /measured CREATE INDEX "Todo_by_ownerId" ON "Todo" \("ownerId"\); on sqlite, 2000 rows: [\d.]+ ms -> [\d.]+ ms per query/,
    );
    matchTarget(cliDatabase.target(), {
      sqlite: () => undefined,
      postgres: () => expect(out).toContain("on postgres, 2000 rows"),
    });
  });
});
