import { describe, expect, it } from "vitest";
import { architectureJSON, List, Todo } from "../test/architecture-manifest.js";
import { defineApp, policy } from "./dsl-app.js";
import { entity } from "./dsl-entity.js";
import { field } from "./dsl-field.js";
import { SchemaError } from "./errors.js";
import { parseManifest } from "./manifest.js";

function todoApp(): ReturnType<typeof defineApp> {
  return defineApp({
    name: "todo",
    version: "0.1.0",
    auth: { trustedOrigins: ["http://localhost:5173"] },
    entities: [List, Todo],
    policies: [
      policy(Todo, {
        name: "own todos",
        allowRead: "auth.userId == data.ownerId",
        allowInsert: "auth.userId != null",
        allowUpdate: "auth.userId == existing.ownerId",
        allowDelete: "auth.userId == existing.ownerId",
      }),
    ],
    functions: "functions",
  });
}

function issuesOf(run: () => unknown): string[] {
  try {
    run();
  } catch (error) {
    if (error instanceof SchemaError) {
      expect(error.code).toBe("INVALID_MANIFEST");
      return error.issues.map((issue) => `${issue.path}: ${issue.message}`);
    }
    throw error;
  }
  throw new Error("expected the app to be rejected");
}

describe("defineApp", () => {
  it("emits the architecture's example manifest exactly", () => {
    const manifest = todoApp();
    expect(manifest).toStrictEqual(architectureJSON);
    expect(JSON.stringify(manifest)).toBe(JSON.stringify(architectureJSON));
    expect(parseManifest(manifest)).toStrictEqual(parseManifest(architectureJSON));
  });

  it("omits what was left at its default", () => {
    const Note = entity("Note", { body: field.string() });
    expect(defineApp({ name: "n", version: "1", entities: [Note] })).toStrictEqual({
      manifest_version: 1,
      name: "n",
      version: "1",
      entities: [{ name: "Note", fields: [{ name: "body", type: "string" }] }],
    });
  });

  it.each([
    ["string", field.string(), { type: "string" }],
    ["int", field.int(), { type: "int" }],
    ["float", field.float(), { type: "float" }],
    ["bool", field.bool(), { type: "bool" }],
    ["datetime", field.datetime(), { type: "datetime" }],
    ["json", field.json<{ tags: string[] }>(), { type: "json" }],
    ["id", field.id("Note"), { type: "id", target: "Note" }],
    ["enum", field.enum(["a", "b"]), { type: "enum", values: ["a", "b"] }],
    ["file", field.file(), { type: "file" }],
    [
      "unique optional int",
      field.int().unique().optional(),
      { type: "int", optional: true, unique: true },
    ],
    [
      "unique owner",
      field.string().owner().unique(),
      { type: "string", unique: true, owner: true },
    ],
    [
      "string with maxBytes",
      field.string().maxBytes(200).optional(),
      { type: "string", optional: true, maxBytes: 200 },
    ],
    [
      "json with maxBytes",
      field.json<{ tags: string[] }>().optional().maxBytes(4096),
      { type: "json", optional: true, maxBytes: 4096 },
    ],
    [
      "owner with maxBytes",
      field.string().maxBytes(64).owner(),
      { type: "string", owner: true, maxBytes: 64 },
    ],
    [
      "optional datetime with default",
      field.datetime().optional().defaultNow(),
      { type: "datetime", optional: true, defaultNow: true },
    ],
  ])("emits a %s field", (_label, builder, expected) => {
    expect(builder.toField("x")).toStrictEqual({ name: "x", ...expected });
  });

  it("keeps builders immutable", () => {
    const base = field.string();
    const owner = base.owner();
    const optional = base.optional();
    expect(owner).not.toBe(base);
    expect(base.toField("a")).toStrictEqual({ name: "a", type: "string" });
    expect(optional.toField("a")).toStrictEqual({ name: "a", type: "string", optional: true });
    expect(Object.isFrozen(base)).toBe(true);
    const values = ["a", "b"] as const;
    const mutable: string[] = [...values];
    const choice = field.enum(mutable as unknown as readonly [string, ...string[]]);
    mutable.push("c");
    expect(choice.toField("c")).toStrictEqual({ name: "c", type: "enum", values: ["a", "b"] });
  });

  it("keeps entities immutable", () => {
    const fields = { a: field.int() };
    const E = entity("E", fields, { indexes: [{ name: "by_a", fields: ["a"] }] });
    Object.assign(fields, { b: field.int() });
    expect(E.toEntity()).toStrictEqual({
      name: "E",
      fields: [{ name: "a", type: "int" }],
      indexes: [{ name: "by_a", fields: ["a"], unique: false }],
    });
    expect(Object.isFrozen(E)).toBe(true);
    expect(Object.isFrozen(E.fields)).toBe(true);
  });

  it("keeps a unique index and the id in index fields", () => {
    const E = entity(
      "E",
      { a: field.int() },
      { indexes: [{ name: "u", fields: ["a", "id"], unique: true }] },
    );
    expect(E.toEntity().indexes).toStrictEqual([{ name: "u", fields: ["a", "id"], unique: true }]);
  });

  it("leaves undefined rules out of a policy", () => {
    expect(policy(Todo, { name: "p", allowRead: "true", allowDelete: undefined })).toStrictEqual({
      name: "p",
      entity: "Todo",
      allowRead: "true",
    });
  });

  it.each<[string, () => unknown, string]>([
    [
      "an id pointing at an entity the app lacks",
      () => defineApp({ name: "t", version: "1", entities: [Todo] }),
      "entities[0].fields[3].target: unknown target entity List",
    ],
    [
      "an optional owner",
      () =>
        defineApp({
          name: "t",
          version: "1",
          entities: [entity("E", { ownerId: field.string().owner().optional() })],
        }),
      "entities[0].fields[0].optional: an owner field cannot be optional",
    ],
    [
      "two owners",
      () =>
        defineApp({
          name: "t",
          version: "1",
          entities: [entity("E", { a: field.string().owner(), b: field.string().owner() })],
        }),
      "entities[0].fields[1].owner: E already has an owner field; an entity has at most one",
    ],
    [
      "a maxBytes of zero",
      () =>
        defineApp({
          name: "t",
          version: "1",
          entities: [entity("E", { a: field.string().maxBytes(0) })],
        }),
      "entities[0].fields[0].maxBytes: `maxBytes`: must be at least 1",
    ],
    [
      "a field named id",
      () => defineApp({ name: "t", version: "1", entities: [entity("E", { id: field.string() })] }),
      "entities[0].fields[0].name: `id` is reserved for the record id",
    ],
    [
      "a lower-case entity name",
      () => defineApp({ name: "t", version: "1", entities: [entity("todo", {})] }),
      "entities[0].name: the name must start with an upper-case letter and hold only letters and digits",
    ],
    [
      "duplicate enum values",
      () =>
        defineApp({
          name: "t",
          version: "1",
          entities: [entity("E", { p: field.enum(["a", "a"]) })],
        }),
      "entities[0].fields[0].values: enum values must be distinct",
    ],
    [
      "the same entity twice",
      () => defineApp({ name: "t", version: "1", entities: [List, List] }),
      "entities[1].name: duplicate entity name List",
    ],
    [
      "a policy on an entity the app lacks",
      () =>
        defineApp({
          name: "t",
          version: "1",
          entities: [List],
          policies: [policy(Todo, { name: "p", allowRead: "true" })],
        }),
      "policies[0].entity: unknown entity Todo",
    ],
    [
      "an empty app name",
      () => defineApp({ name: "", version: "1" }),
      "name: Too small: expected string to have >=1 characters",
    ],
    [
      "a value that is no field builder (from plain JavaScript)",
      () =>
        defineApp({
          name: "t",
          version: "1",
          entities: [entity("E", { a: { type: "string" } as never })],
        }),
      "E.a: is not a field builder; use field.string() and its siblings",
    ],
  ])("rejects %s with a SchemaError", (_label, run, issue) => {
    expect(issuesOf(run)).toContain(issue);
  });
});
