import { describe, expect, it } from "vitest";
import { type ManifestInput, parseManifest } from "./manifest.js";
import { describeMigrationStep, diffTablePlans, planTables, type TablePlan } from "./plan.js";

type EntityInput = NonNullable<ManifestInput["entities"]>[number];

function plan(entities: EntityInput[]): TablePlan {
  return planTables(parseManifest({ manifest_version: 1, name: "t", version: "1", entities }));
}

const list: EntityInput = { name: "List", fields: [{ name: "title", type: "string" }] };
const todo: EntityInput = {
  name: "Todo",
  fields: [
    { name: "title", type: "string" },
    { name: "email", type: "string", unique: true, optional: true },
    { name: "listId", type: "id", target: "List", optional: true },
    { name: "priority", type: "enum", values: ["low", "high"] },
  ],
  indexes: [{ name: "by_list", fields: ["listId", "title"] }],
};

function withTodo(change: (entity: EntityInput) => EntityInput): EntityInput[] {
  return [list, change(structuredClone(todo))];
}

describe("planTables", () => {
  it("describes columns, references, enum values and both kinds of index", () => {
    const table = plan([list, todo]).tables[1];
    expect(table).toEqual({
      name: "Todo",
      columns: [
        { name: "title", kind: "string", nullable: false, unique: false },
        { name: "email", kind: "string", nullable: true, unique: true },
        { name: "listId", kind: "id", nullable: true, unique: false, references: "List" },
        { name: "priority", kind: "enum", nullable: false, unique: false, values: ["low", "high"] },
      ],
      indexes: [
        { name: "Todo_email_key", columns: ["email"], unique: true },
        { name: "Todo_by_list", columns: ["listId", "title"], unique: false },
      ],
    });
  });

  it("is plain JSON", () => {
    const value = plan([list, todo]);
    expect(JSON.parse(JSON.stringify(value))).toEqual(value);
  });
});

describe("diffTablePlans", () => {
  it("creates every table, referenced tables first, then the indexes", () => {
    const { steps, losses } = diffTablePlans(null, plan([todo, list]));
    expect(losses).toEqual([]);
    expect(steps.map(describeMigrationStep)).toEqual([
      "create table List",
      "create table Todo",
      "create unique index Todo_email_key on Todo (email)",
      "create index Todo_by_list on Todo (listId, title)",
    ]);
  });

  it("needs nothing between equal plans", () => {
    expect(diffTablePlans(plan([list, todo]), plan([list, todo]))).toEqual({
      steps: [],
      losses: [],
    });
  });

  it("adds optional fields and tables, and rebuilds changed indexes", () => {
    const next = withTodo((entity) => ({
      ...entity,
      fields: [
        ...entity.fields.map((field) =>
          field.name === "email" ? { ...field, unique: false } : field,
        ),
        { name: "note", type: "string", optional: true },
      ],
      indexes: [{ name: "by_list", fields: ["listId"] }],
    }));
    next.push({ name: "Tag", fields: [{ name: "label", type: "string", unique: true }] });
    const { steps, losses } = diffTablePlans(plan([list, todo]), plan(next));
    expect(losses).toEqual([]);
    expect(steps.map(describeMigrationStep)).toEqual([
      "drop index Todo_email_key",
      "drop index Todo_by_list",
      "create table Tag",
      "add column Todo.note",
      "create index Todo_by_list on Todo (listId)",
      "create unique index Tag_label_key on Tag (label)",
    ]);
  });

  it("needs no step for an added enum value or a field made optional", () => {
    const next = withTodo((entity) => ({
      ...entity,
      fields: entity.fields.map((field) => {
        if (field.type === "enum") return { ...field, values: ["low", "high", "urgent"] };
        if (field.name === "title") return { ...field, optional: true };
        return field;
      }),
    }));
    expect(diffTablePlans(plan([list, todo]), plan(next))).toEqual({ steps: [], losses: [] });
  });

  it.each<[string, EntityInput[], string]>([
    ["a dropped entity", [list], "Todo would be dropped with all its rows"],
    [
      "a dropped field",
      withTodo((e) => ({ ...e, fields: e.fields.filter((f) => f.name !== "priority") })),
      "Todo.priority would be dropped",
    ],
    [
      "a changed kind",
      withTodo((e) => ({
        ...e,
        fields: e.fields.map((f) => (f.name === "title" ? { name: "title", type: "json" } : f)),
      })),
      "Todo.title would change from string to json; its stored values would be lost",
    ],
    [
      "a changed id target",
      [
        list,
        { name: "Board", fields: [] },
        ...withTodo((e) => ({
          ...e,
          fields: e.fields.map((f) => (f.type === "id" ? { ...f, target: "Board" } : f)),
        })).slice(1),
      ],
      "Todo.listId would point to Board instead of List; its stored ids would no longer match",
    ],
    [
      "an optional field made required",
      withTodo((e) => ({
        ...e,
        fields: e.fields.map((f) => (f.name === "email" ? { ...f, optional: false } : f)),
      })),
      "Todo.email would become required; existing Todo rows may have no value for it",
    ],
    [
      "a new required field",
      withTodo((e) => ({ ...e, fields: [...e.fields, { name: "done", type: "bool" }] })),
      "Todo.done is a new required field; existing Todo rows would have no value for it (add it as optional first)",
    ],
    [
      "removed enum values",
      withTodo((e) => ({
        ...e,
        fields: e.fields.map((f) => (f.type === "enum" ? { ...f, values: ["low"] } : f)),
      })),
      "Todo.priority would lose the enum value high; rows holding it would become invalid",
    ],
  ])("reports %s as a loss", (_label, next, loss) => {
    expect(diffTablePlans(plan([list, todo]), plan(next)).losses).toEqual([loss]);
  });
});
