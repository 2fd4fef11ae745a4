import { describe, expect, it } from "vitest";
import { TODO_MANIFEST, tempDir } from "./fixtures.js";
import { svc as cli } from "./svc-cli.js";
import { entity, OWNER, testManifest, writeTestApp } from "./test-app.js";

/** `svc policy explain <entity> <action> --manifest <manifest> ...extra`. */
function explain(manifest: string, entity: string, action: string, ...extra: string[]) {
  return cli("policy", "explain", entity, action, "--manifest", manifest, ...extra);
}

/** {@link explain} on the todo app. */
function explainTodoApp(entity: string, action: string, ...extra: string[]) {
  return explain(TODO_MANIFEST, entity, action, ...extra);
}

describe("svc policy explain", () => {
  it("prints the rule, the SQL it compiles to and the verdict with what decided it", async () => {
    const { code, out } = await explainTodoApp(
      "Todo",
      "read",
      "--auth",
      '{"userId":"u1"}',
      "--data",
      '{"ownerId":"u2"}',
    );
    expect(code).toBe(0);
    expect(out).toContain("Todo.allowRead: 1 rule");
    expect(out).toContain('policy "own todos"');
    expect(out).toContain("rule:   auth.userId == data.ownerId");
    expect(out).toMatch(
      /query: select \* from "Todo" where "ownerId" = \?\s+-- parameters \["u1"\]/,
    );
    expect(out).toContain("result: false (decided by `auth.userId == data.ownerId` at column 1)");
    expect(out).toMatch(/verdict: denied/);
  });

  it("shows Postgres SQL and JSON on request", async () => {
    const { code, out } = await explainTodoApp(
      "Todo",
      "read",
      "--auth",
      '{"userId":"u1"}',
      "--dialect",
      "postgres",
      "--json",
    );
    expect(code).toBe(0);
    const parsed = JSON.parse(out) as { sql: { sql: string; parameters: unknown[] } };
    expect(parsed.sql).toEqual({
      sql: 'select * from "Todo" where "ownerId" = $1',
      parameters: ["u1"],
    });
  });

  it("says an anonymous caller's read matches no row", async () => {
    const { out } = await explainTodoApp("Todo", "read");
    expect(out).toContain("query: no row");
  });

  it("explains an entity without a rule for the action", async () => {
    const { code, out } = await explainTodoApp("List", "insert");
    expect(code).toBe(0);
    expect(out).toContain("List.allowInsert: no rule");
  });

  it.each([
    [["policy", "explain", "Todo"]],
    [["policy", "explain", "Todo", "publish", "--manifest", TODO_MANIFEST]],
    [["policy", "explain", "Ghost", "read", "--manifest", TODO_MANIFEST]],
    [["policy", "explain", "Todo", "read", "--manifest", TODO_MANIFEST, "--auth", "{nope"]],
    [["policy", "explain", "Todo", "read", "--manifest", TODO_MANIFEST, "--auth", '{"user":1}']],
    [["policy", "explain", "Todo", "read", "--bogus"]],
  ])("exits 2 with the usage on %j", async (argv) => {
    const { code, err } = await cli(...argv);
    expect(code).toBe(2);
    expect(err).toContain("Usage: svc policy explain");
  });

  it("exits 1 naming the manifest when it cannot be read", async () => {
    const { code, err } = await explain("/nope.json", "Todo", "read");
    expect(code).toBe(1);
    expect(err).toContain("SVC_MANIFEST");
  });

  it("shows a bad rule with a caret under the problem and the nearest field", async () => {
    using dir = tempDir();
    const manifest = writeTestApp(
      dir.path,
      testManifest("typo", {
        entities: [entity("Todo", { ownerId: OWNER })],
        policies: [{ name: "own", entity: "Todo", allowRead: "auth.userId == data.ownerID" }],
      }),
    );
    const { code, err } = await explain(manifest, "Todo", "read");
    expect(code).toBe(1);
    expect(err).toBe(
      [
        "svc: The manifest's policies are invalid.",
        '  policy "own" (Todo.allowRead): unknown field data.ownerID (did you mean data.ownerId?) at 16',
        "      auth.userId == data.ownerID",
        "                     ^",
        "",
      ].join("\n"),
    );
  });
});
