import { type ManifestInput, SchemaError } from "@svc/schema";
import { matchTarget } from "@svc/tooling/databases";
import { sql } from "kysely";
import { describe, expect, it } from "vitest";
import { adminAuth, StoreError } from "../src/index.js";
import {
  baseManifest,
  databases,
  expectStoreError,
  manifestOf,
  todoInput,
  useStore,
} from "./fixture.js";

type EntityInput =
  | (typeof baseManifest)["entities"][number]
  | NonNullable<ManifestInput["entities"]>[number];

function withEntities(change: (entities: EntityInput[]) => EntityInput[]): ManifestInput {
  return {
    ...structuredClone(baseManifest),
    entities: change(structuredClone(baseManifest.entities)),
  };
}

const tag: EntityInput = {
  name: "Tag",
  fields: [
    { name: "label", type: "string", unique: true },
    { name: "todoId", type: "id", target: "Todo" },
  ],
};

describe.each(databases)("store contract on $name: migrations", (database) => {
  const fixture = useStore(database, { migrate: false });

  it("creates every table on an empty database, then has nothing left to do", async () => {
    const first = await fixture().store.migrate();
    expect(first.applied).toEqual([
      "create table List",
      "create table Todo",
      "create table Node",
      "create unique index Todo_code_key on Todo (code)",
      "create index Todo_by_owner on Todo (ownerId)",
    ]);
    expect((await fixture().store.migrate()).applied).toEqual([]);
    expect((await fixture().reopen().migrate()).applied).toEqual([]);
  });

  it("applies additive changes from a changed manifest and keeps the rows", async () => {
    await fixture().store.migrate();
    const todo = await fixture().store.transaction(adminAuth, (db) =>
      db.insert("Todo", todoInput()),
    );
    const manifest = manifestOf(
      withEntities((entities) => [
        ...entities.map((entity) =>
          entity.name === "Todo"
            ? {
                ...entity,
                fields: [
                  ...entity.fields,
                  { name: "note", type: "string" as const, optional: true },
                  { name: "archiveId", type: "id" as const, target: "List", optional: true },
                ],
                indexes: [{ name: "by_priority", fields: ["priority"] }],
              }
            : entity,
        ),
        tag,
      ]),
    );
    const store = fixture().reopen({ manifest });
    expect((await store.migrate()).applied).toEqual([
      "drop index Todo_by_owner",
      "create table Tag",
      "add column Todo.note",
      "add column Todo.archiveId",
      "create index Todo_by_priority on Todo (priority)",
      "create unique index Tag_label_key on Tag (label)",
    ]);
    expect(await store.reader(adminAuth).get("Todo", todo.id)).toStrictEqual({
      ...todo,
      note: null,
      archiveId: null,
    });
    const list = await store.transaction(adminAuth, (db) =>
      db.insert("List", { title: "archive" }),
    );
    const updated = await store.transaction(adminAuth, (db) =>
      db.update("Todo", todo.id, { note: "hi", archiveId: list.id }),
    );
    expect(updated).toMatchObject({ note: "hi", archiveId: list.id });
    await expectStoreError(
      store.transaction(adminAuth, (db) => db.delete("List", list.id)),
      "ROW_REFERENCED",
    );
    await store.transaction(adminAuth, (db) => db.insert("Tag", { label: "a", todoId: todo.id }));
    await expectStoreError(
      store.transaction(adminAuth, (db) => db.insert("Tag", { label: "a", todoId: todo.id })),
      "UNIQUE_VIOLATION",
    );
  });

  it("refuses a destructive change with every loss in the message, changing nothing", async () => {
    await fixture().store.migrate();
    const todo = await fixture().store.transaction(adminAuth, (db) =>
      db.insert("Todo", todoInput({ code: "c" })),
    );
    const manifest = manifestOf(
      withEntities((entities) => [
        ...entities
          .filter((entity) => entity.name !== "Node")
          .map((entity) =>
            entity.name === "Todo"
              ? {
                  ...entity,
                  fields: [
                    ...entity.fields.filter(
                      (field) => field.name !== "title" && field.name !== "code",
                    ),
                    { name: "note", type: "string" as const, optional: true },
                  ],
                }
              : entity,
          ),
        tag,
      ]),
    );
    const store = fixture().reopen({ manifest });
    const error = await store.migrate().catch((reason: unknown) => reason);
    expect(error).toBeInstanceOf(SchemaError);
    expect(error).toMatchObject({
      code: "DESTRUCTIVE_MIGRATION",
      message:
        "Refusing to migrate: Node would be dropped with all its rows; Todo.title would be dropped; Todo.code would be dropped.",
      issues: [
        { path: "Node", message: "Node would be dropped with all its rows" },
        { path: "Todo.title", message: "Todo.title would be dropped" },
        { path: "Todo.code", message: "Todo.code would be dropped" },
      ],
    });
    // Nothing applied: no Tag table, no note column, the unique index still there, same plan stored.
    const tagRead = await store
      .reader(adminAuth)
      .query("Tag")
      .catch((reason: unknown) => reason);
    expect(tagRead).toMatchObject({ code: "DATABASE_ERROR" });
    expect(await fixture().store.reader(adminAuth).get("Todo", todo.id)).toStrictEqual(todo);
    await expectStoreError(
      fixture().store.transaction(adminAuth, (db) => db.insert("Todo", todoInput({ code: "c" }))),
      "UNIQUE_VIOLATION",
    );
    expect((await fixture().store.migrate()).applied).toEqual([]);
  });

  it("creates entities that reference each other in a cycle", async () => {
    const manifest = manifestOf({
      manifest_version: 1,
      name: "cycle",
      version: "1",
      entities: [
        {
          name: "Team",
          fields: [{ name: "leadId", type: "id", target: "Person", optional: true }],
        },
        {
          name: "Person",
          fields: [{ name: "teamId", type: "id", target: "Team", optional: true }],
        },
      ],
    });
    const store = fixture().reopen({ manifest });
    await store.migrate();
    await store.transaction(adminAuth, async (db) => {
      const team = await db.insert("Team", {});
      const person = await db.insert("Person", { teamId: team.id });
      await db.update("Team", team.id, { leadId: person.id });
    });
    const rows = (await store.reader(adminAuth).query("Person")).rows;
    expect(rows).toHaveLength(1);
    await store.truncateAll();
    expect((await store.reader(adminAuth).query("Team")).rows).toEqual([]);
  });

  it("declares the column types of the dialect, with bytewise text on Postgres", async () => {
    await fixture().store.migrate();
    const db = fixture().database.db;
    await matchTarget(fixture().target, {
      postgres: async () => {
        const { rows } = await sql<{
          column_name: string;
          data_type: string;
          collation_name: string | null;
        }>`
        select column_name, data_type, collation_name from information_schema.columns
        where table_schema = current_schema() and table_name = 'Todo' order by ordinal_position`.execute(
          db,
        );
        expect(rows.map((row) => [row.column_name, row.data_type, row.collation_name])).toEqual([
          ["id", "text", "C"],
          ["title", "text", "C"],
          ["done", "boolean", null],
          ["ownerId", "text", "C"],
          ["listId", "text", "C"],
          ["priority", "text", "C"],
          ["createdAt", "timestamp with time zone", null],
          ["due", "timestamp with time zone", null],
          ["points", "bigint", null],
          ["score", "double precision", null],
          ["meta", "jsonb", null],
          ["code", "text", "C"],
        ]);
      },
      sqlite: async () => {
        const { rows } = await sql<{
          name: string;
          type: string;
        }>`select name, type from pragma_table_info('Todo')`.execute(db);
        expect(rows.map((row) => [row.name, row.type])).toEqual([
          ["id", "TEXT"],
          ["title", "TEXT"],
          ["done", "INTEGER"],
          ["ownerId", "TEXT"],
          ["listId", "TEXT"],
          ["priority", "TEXT"],
          ["createdAt", "TEXT"],
          ["due", "TEXT"],
          ["points", "INTEGER"],
          ["score", "REAL"],
          ["meta", "TEXT"],
          ["code", "TEXT"],
        ]);
      },
    });
  });

  it("wraps a step the data does not allow as MIGRATION_FAILED and rolls it back", async () => {
    await fixture().store.migrate();
    await fixture().store.transaction(adminAuth, async (db) => {
      await db.insert("List", { title: "same" });
      await db.insert("List", { title: "same" });
    });
    const manifest = manifestOf(
      withEntities((entities) =>
        entities.map((entity) =>
          entity.name === "List"
            ? { name: "List", fields: [{ name: "title", type: "string" as const, unique: true }] }
            : entity,
        ),
      ),
    );
    const error = await fixture()
      .reopen({ manifest })
      .migrate()
      .catch((reason: unknown) => reason);
    expect(error).toBeInstanceOf(StoreError);
    expect(error).toMatchObject({ code: "MIGRATION_FAILED", expose: false });
    expect((await fixture().store.migrate()).applied).toEqual([]);
  });
});
