import { describe, expect, it } from "vitest";
import { adminAuth, type createAuthContext, type Row, type StoreErrorCode } from "../src/index.js";
import { adminAs, databases, expectStoreError, idOf, todoInput, useStore } from "./fixture.js";

describe.each(databases)("store contract on $name: validation and constraints", (database) => {
  const fixture = useStore(database);
  const insertAs = (
    auth: ReturnType<typeof createAuthContext>,
    entity: string,
    data: Record<string, unknown>,
  ) => fixture().store.transaction(auth, (db) => db.insert(entity, data));
  const insert = (entity: string, data: Record<string, unknown>) =>
    insertAs(adminAuth, entity, data);
  const update = (entity: string, id: string, patch: Record<string, unknown>) =>
    fixture().store.transaction(adminAuth, (db) => db.update(entity, id, patch));

  it.each<[string, Record<string, unknown>, StoreErrorCode, string]>([
    ["a wrongly typed string", { title: 5 }, "INVALID_FIELD", "Field Todo.title must be a string."],
    [
      "a non-boolean bool",
      { done: "yes" },
      "INVALID_FIELD",
      "Field Todo.done must be true or false.",
    ],
    ["a fractional int", { points: 1.5 }, "INVALID_FIELD", "Field Todo.points must be an integer."],
    [
      "an infinite float",
      { score: Number.POSITIVE_INFINITY },
      "INVALID_FIELD",
      "Field Todo.score must be a finite number.",
    ],
    [
      "a datetime without zone",
      { due: "2024-01-01T00:00:00" },
      "INVALID_FIELD",
      "Field Todo.due must be an ISO 8601 date-time with a time zone, such as 2024-05-01T12:00:00Z.",
    ],
    [
      "a value outside the enum",
      { priority: "urgent" },
      "INVALID_FIELD",
      "Field Todo.priority must be one of low, high.",
    ],
    [
      "a malformed id field",
      { listId: "nope" },
      "INVALID_FIELD",
      "Field Todo.listId must be a record id (40 lowercase hexadecimal characters).",
    ],
    [
      "a non-JSON json value",
      { meta: { when: new Date(0) } },
      "INVALID_FIELD",
      "Field Todo.meta must be a JSON value.",
    ],
    [
      "null on a required field",
      { title: null },
      "INVALID_FIELD",
      "Field Todo.title cannot be null.",
    ],
    ["an unknown field", { colour: "red" }, "UNKNOWN_FIELD", "Todo has no field named colour."],
    [
      "an unknown field whose name is not an identifier",
      { 'x"; drop table "Todo': 1 },
      "UNKNOWN_FIELD",
      "Todo has no field named (an invalid name).",
    ],
    [
      "a missing required field",
      { title: undefined },
      "MISSING_FIELD",
      "Field Todo.title is required.",
    ],
  ])("rejects an insert with %s", async (_label, fields, code, message) => {
    const error = await expectStoreError(insert("Todo", todoInput(fields)), code);
    expect(error).toMatchObject({ status: 400, expose: true, message });
  });

  it.each<[string, Record<string, unknown>, StoreErrorCode, string]>([
    [
      "null on a required field",
      { title: null },
      "INVALID_FIELD",
      "Field Todo.title cannot be null.",
    ],
    [
      "a wrongly typed value",
      { points: "3" },
      "INVALID_FIELD",
      "Field Todo.points must be an integer.",
    ],
    ["an unknown field", { colour: "red" }, "UNKNOWN_FIELD", "Todo has no field named colour."],
    ["a changed id", { id: idOf(99) }, "INVALID_FIELD", "The id of a Todo cannot be changed."],
  ])("rejects an update with %s and keeps the row", async (_label, patch, code, message) => {
    const todo = await insert("Todo", todoInput());
    const error = await expectStoreError(update("Todo", todo.id, patch), code);
    expect(error.message).toBe(message);
    expect(await fixture().store.reader(adminAuth).get("Todo", todo.id)).toStrictEqual(todo);
  });

  it("rejects a malformed path id on update and delete with INVALID_ID", async () => {
    await expectStoreError(update("Todo", "x", { done: true }), "INVALID_ID");
    await expectStoreError(
      fixture().store.transaction(adminAuth, (db) => db.delete("Todo", "x")),
      "INVALID_ID",
    );
  });

  describe("owner field", () => {
    it("is stamped with the caller's user id", async () => {
      const todo = await insertAs(adminAs("user-7"), "Todo", todoInput({ ownerId: undefined }));
      expect(todo.ownerId).toBe("user-7");
    });

    it("accepts the caller's own id and refuses another with 403 OWNER_MISMATCH", async () => {
      expect(
        (await insertAs(adminAs("user-7"), "Todo", todoInput({ ownerId: "user-7" }))).ownerId,
      ).toBe("user-7");
      const error = await expectStoreError(
        insertAs(adminAs("user-7"), "Todo", todoInput({ ownerId: "user-8" })),
        "OWNER_MISMATCH",
      );
      expect(error).toMatchObject({
        status: 403,
        message: "Field Todo.ownerId must be the caller's user id.",
      });
    });

    it("must be supplied by a caller without a user id (the bare admin token)", async () => {
      const error = await expectStoreError(
        insert("Todo", todoInput({ ownerId: undefined })),
        "MISSING_FIELD",
      );
      expect(error.message).toBe("Field Todo.ownerId is required.");
      expect((await insert("Todo", todoInput({ ownerId: "someone" }))).ownerId).toBe("someone");
    });

    it("cannot change on update (400 OWNER_IMMUTABLE), though repeating it is fine", async () => {
      const todo = await insert("Todo", todoInput({ ownerId: "user-1" }));
      const error = await expectStoreError(
        update("Todo", todo.id, { ownerId: "user-2" }),
        "OWNER_IMMUTABLE",
      );
      expect(error).toMatchObject({
        status: 400,
        message: "Field Todo.ownerId cannot be changed.",
      });
      expect((await update("Todo", todo.id, { ownerId: "user-1", done: true })).done).toBe(true);
    });
  });

  describe("unique fields", () => {
    it("answer 409 UNIQUE_VIOLATION naming the field, on insert and update", async () => {
      await insert("Todo", todoInput({ code: "A" }));
      const other = await insert("Todo", todoInput({ code: "B" }));
      const onInsert = await expectStoreError(
        insert("Todo", todoInput({ code: "A" })),
        "UNIQUE_VIOLATION",
      );
      expect(onInsert).toMatchObject({
        status: 409,
        message: "A Todo with this code already exists.",
      });
      expect(onInsert.cause).toBeDefined();
      const onUpdate = await expectStoreError(
        update("Todo", other.id, { code: "A" }),
        "UNIQUE_VIOLATION",
      );
      expect(onUpdate.message).toBe("A Todo with this code already exists.");
    });

    it("allow many rows without a value", async () => {
      await insert("Todo", todoInput());
      await insert("Todo", todoInput({ code: null }));
      expect((await fixture().store.reader(adminAuth).query("Todo")).rows).toHaveLength(2);
    });

    it("answer 409 naming the id for a duplicate custom id", async () => {
      await insert("List", { id: idOf(1), title: "a" });
      const error = await expectStoreError(
        insert("List", { id: idOf(1), title: "b" }),
        "UNIQUE_VIOLATION",
      );
      expect(error.message).toBe("A List with this id already exists.");
    });

    it("leave the transaction usable after a caught violation, on every dialect", async () => {
      await insert("Todo", todoInput({ code: "A" }));
      const rows = await fixture().store.transaction(adminAuth, async (db) => {
        await expectStoreError(db.insert("Todo", todoInput({ code: "A" })), "UNIQUE_VIOLATION");
        await db.insert("Todo", todoInput({ code: "C" }));
        return (await db.query("Todo", { orderBy: { field: "code" } })).rows.map(
          (row: Row) => row.code,
        );
      });
      expect(rows).toEqual(["A", "C"]);
    });
  });

  describe("references", () => {
    it("reject an id field whose target row does not exist with 400 INVALID_REFERENCE", async () => {
      const error = await expectStoreError(
        insert("Todo", todoInput({ listId: idOf(5) })),
        "INVALID_REFERENCE",
      );
      expect(error).toMatchObject({
        status: 400,
        message: "Field Todo.listId references a List that does not exist.",
      });
      const todo = await insert("Todo", todoInput());
      const onUpdate = await expectStoreError(
        update("Todo", todo.id, { listId: idOf(5) }),
        "INVALID_REFERENCE",
      );
      expect(onUpdate.message).toBe("Field Todo.listId references a List that does not exist.");
    });

    it("refuse to delete a referenced row with 409 ROW_REFERENCED, and allow it once unreferenced", async () => {
      const list = await insert("List", { title: "l" });
      const todo = await insert("Todo", todoInput({ listId: list.id }));
      const remove = () =>
        fixture().store.transaction(adminAuth, (db) => db.delete("List", list.id));
      const error = await expectStoreError(remove(), "ROW_REFERENCED");
      expect(error).toMatchObject({
        status: 409,
        message: "This List is still referenced by Todo.listId; change or delete those rows first.",
      });
      await update("Todo", todo.id, { listId: null });
      await remove();
      expect(await fixture().store.reader(adminAuth).get("List", list.id)).toBeNull();
    });

    it("allow a row that references itself, and its deletion", async () => {
      const node = await insert("Node", { id: idOf(3), label: "loop", parentId: idOf(3) });
      expect(node.parentId).toBe(idOf(3));
      const child = await insert("Node", { label: "child", parentId: node.id });
      await expectStoreError(
        fixture().store.transaction(adminAuth, (db) => db.delete("Node", node.id)),
        "ROW_REFERENCED",
      );
      await fixture().store.transaction(adminAuth, async (db) => {
        await db.delete("Node", child.id);
        await db.delete("Node", node.id);
      });
    });
  });
});
