import { describe, expect, it } from "vitest";
import { architectureJSON } from "../test/architecture-manifest.js";
import { type ManifestIssue, SchemaError } from "./errors.js";
import { parseManifest } from "./manifest.js";

const todoManifest = architectureJSON;

function issuesOf(input: unknown): ManifestIssue[] {
  try {
    parseManifest(input);
  } catch (error) {
    if (error instanceof SchemaError) return [...error.issues];
    throw error;
  }
  throw new Error("expected the manifest to be rejected");
}

function withTodoField(field: Record<string, unknown>): unknown {
  const copy = structuredClone(todoManifest);
  copy.entities[1]?.fields.push(field as never);
  return copy;
}

describe("parseManifest", () => {
  it("accepts the architecture's example and fills defaults", () => {
    const manifest = parseManifest(todoManifest);
    const todo = manifest.entities[1];
    expect(todo?.fields[0]).toEqual({
      name: "title",
      type: "string",
      optional: false,
      unique: false,
      owner: false,
    });
    expect(manifest.entities[0]?.indexes).toEqual([]);
  });

  it("defaults functions, policies and auth", () => {
    const manifest = parseManifest({ manifest_version: 1, name: "x", version: "1", entities: [] });
    expect(manifest.functions).toBe("functions");
    expect(manifest.policies).toEqual([]);
    expect(manifest.auth.trustedOrigins).toEqual([]);
  });

  it.each([
    ["an unknown kind", { name: "x", type: "text" }, "entities[1].fields[6].type"],
    [
      "defaultNow on a string",
      { name: "x", type: "string", defaultNow: true },
      "entities[1].fields[6].defaultNow",
    ],
    ["owner on an int", { name: "x", type: "int", owner: true }, "entities[1].fields[6].owner"],
    ["an id without target", { name: "x", type: "id" }, "entities[1].fields[6].target"],
    [
      "an unknown target",
      { name: "x", type: "id", target: "Nope" },
      "entities[1].fields[6].target",
    ],
    ["an empty enum", { name: "x", type: "enum", values: [] }, "entities[1].fields[6].values"],
    ["a duplicate field", { name: "title", type: "string" }, "entities[1].fields[6].name"],
    ["the reserved id", { name: "id", type: "string" }, "entities[1].fields[6].name"],
    [
      "a second owner",
      { name: "otherOwner", type: "string", owner: true },
      "entities[1].fields[6].owner",
    ],
  ])("rejects %s and names the path", (_label, field, path) => {
    const issues = issuesOf(withTodoField(field));
    expect(issues.map((issue) => issue.path)).toContain(path);
  });

  it.each([
    ["a string", { name: "x", type: "string", maxBytes: 200 }],
    ["a json field", { name: "x", type: "json", maxBytes: 1 }],
    ["an owner", { name: "x", type: "string", maxBytes: 64 * 1024 * 1024 }],
  ])("accepts maxBytes on %s", (_label, field) => {
    const manifest = parseManifest(withTodoField(field));
    expect(manifest.entities[1]?.fields[6]).toMatchObject({ maxBytes: field.maxBytes });
  });

  it.each([
    ["zero", 0],
    ["a fraction", 1.5],
    ["more than 64 MiB", 64 * 1024 * 1024 + 1],
    ["a string", "200"],
  ])("rejects maxBytes that is %s", (_label, maxBytes) => {
    const issues = issuesOf(withTodoField({ name: "x", type: "string", maxBytes }));
    expect(issues.map((issue) => issue.path)).toContain("entities[1].fields[6].maxBytes");
  });

  it("allows maxBytes only on string and json fields", () => {
    const issues = issuesOf(withTodoField({ name: "x", type: "int", maxBytes: 10 }));
    expect(issues[0]?.message).toBe("`maxBytes` is allowed only on string or json fields");
  });

  it("explains a modifier on the wrong kind", () => {
    const issues = issuesOf(withTodoField({ name: "x", type: "string", defaultNow: true }));
    expect(issues[0]?.message).toBe("`defaultNow` is allowed only on datetime fields");
  });

  it("rejects duplicate entities, bad index fields and policies on unknown entities", () => {
    const copy = structuredClone(todoManifest) as Record<string, unknown> & typeof todoManifest;
    copy.entities.push({ name: "List", fields: [] } as never);
    copy.entities[1]?.indexes?.push({ name: "by_nothing", fields: ["nothing"], unique: false });
    copy.policies.push({ name: "p", entity: "Ghost", allowRead: "true" } as never);
    const paths = issuesOf(copy).map((issue) => issue.path);
    expect(paths).toEqual(
      expect.arrayContaining([
        "entities[2].name",
        "entities[1].indexes[1].fields[0]",
        "policies[1].entity",
      ]),
    );
  });

  it("puts every issue in the error message, named as the author wrote it", () => {
    expect(() => parseManifest(withTodoField({ name: "x", type: "text" }))).toThrow(
      /Todo\.x: unknown type "text".*\(entities\[1\]\.fields\[6\]\.type\)/,
    );
  });

  it.each([
    [
      "a misspelt type",
      { name: "title2", type: "strng" },
      "Todo.title2",
      'unknown type "strng"; did you mean "string"?',
    ],
    [
      "a misspelt modifier",
      { name: "note", type: "string", optinal: true },
      "Todo.note",
      'unknown property `optinal`; did you mean "optional"?',
    ],
    [
      "a misspelt target",
      { name: "list2", type: "id", target: "Lst" },
      "Todo.list2",
      'unknown target entity Lst; did you mean "List"?',
    ],
    ["a bad field name", { name: "Bad", type: "string" }, "Todo.Bad", "the name must start"],
    ["a zero maxBytes", { name: "x", type: "string", maxBytes: 0 }, "Todo.x", "must be at least 1"],
  ])(
    "names the entity and field of %s, and suggests the nearest spelling",
    (_label, field, where, message) => {
      const issue = issuesOf(withTodoField(field))[0];
      expect(issue?.where).toBe(where);
      expect(issue?.message).toContain(message);
    },
  );

  it("names indexes and policies, and suggests entity and field names", () => {
    const copy = structuredClone(todoManifest) as Record<string, unknown> & typeof todoManifest;
    copy.entities[1]?.indexes?.push({ name: "by_titel", fields: ["titel"], unique: false });
    copy.policies.push({ name: "mine", entity: "Tood", allowRead: "true" } as never);
    const issues = issuesOf(copy);
    expect(issues).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          where: "Todo index by_titel",
          message: 'Todo has no field titel; did you mean "title"?',
        }),
        expect.objectContaining({
          where: 'policy "mine"',
          message: 'unknown entity Tood; did you mean "Todo"?',
        }),
      ]),
    );
  });

  it("suggests nothing for a name far from every candidate", () => {
    const issue = issuesOf(withTodoField({ name: "x", type: "id", target: "Zzzzzz" }))[0];
    expect(issue?.message).toBe("unknown target entity Zzzzzz");
  });
});
