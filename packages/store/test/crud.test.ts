import { describe, expect, it } from "vitest";
import { adminAuth } from "../src/index.js";
import { databases, expectStoreError, idOf, NOW, todoInput, useStore } from "./fixture.js";

describe.each(databases)("store contract on $name: rows", (database) => {
  const fixture = useStore(database);
  const insert = (entity: string, data: Record<string, unknown>) =>
    fixture().store.transaction(adminAuth, (db) => db.insert(entity, data));
  const get = (entity: string, id: string) => fixture().store.reader(adminAuth).get(entity, id);

  it("round-trips every kind, as returned by insert and as read back", async () => {
    const list = await insert("List", { title: "Home" });
    const todo = await insert(
      "Todo",
      todoInput({
        title: "Ünïcode ✓",
        done: true,
        listId: list.id,
        priority: "high",
        createdAt: "2024-05-01T12:30:00+02:00",
        due: "2030-12-31T23:59:59.999Z",
        points: -42,
        score: 2.5,
        meta: { tags: ["a", "b"], nested: { n: 1, ok: true, none: null } },
        code: "T-1",
      }),
    );
    const expected = {
      id: todo.id,
      title: "Ünïcode ✓",
      done: true,
      ownerId: "user-1",
      listId: list.id,
      priority: "high",
      createdAt: "2024-05-01T10:30:00.000Z",
      due: "2030-12-31T23:59:59.999Z",
      points: -42,
      score: 2.5,
      meta: { tags: ["a", "b"], nested: { n: 1, ok: true, none: null } },
      code: "T-1",
    };
    expect(todo).toStrictEqual(expected);
    expect(await get("Todo", todo.id)).toStrictEqual(expected);
    expect(Object.keys(todo)).toEqual(Object.keys(expected));
  });

  it("stores absent optional fields as null, false as false, and json arrays and scalars", async () => {
    const todo = await insert("Todo", todoInput({ meta: [1, "two", [3]] }));
    expect(todo).toMatchObject({
      done: false,
      listId: null,
      due: null,
      points: null,
      score: null,
      code: null,
    });
    expect((await get("Todo", todo.id))?.meta).toStrictEqual([1, "two", [3]]);
    const scalar = await insert("Todo", todoInput({ meta: "just text", score: 3 }));
    expect(await get("Todo", scalar.id)).toMatchObject({ meta: "just text", score: 3 });
  });

  it("returns json objects with keys in one canonical order on every dialect", async () => {
    const todo = await insert("Todo", todoInput({ meta: { zz: 1, a: 2, bb: 3 } }));
    const stored = await get("Todo", todo.id);
    expect(Object.keys(stored?.meta as object)).toEqual(["a", "bb", "zz"]);
  });

  it.each([
    ["0001-01-01T00:00:00Z", "0001-01-01T00:00:00.000Z"],
    ["9999-12-31T23:59:59.999Z", "9999-12-31T23:59:59.999Z"],
    ["1969-12-31T23:59:59.001-00:30", "1970-01-01T00:29:59.001Z"],
    ["2024-02-29T12:00:00.123456+14:00", "2024-02-28T22:00:00.123Z"],
  ])("normalizes datetime %s to %s and reads it back unchanged", async (input, stored) => {
    const todo = await insert("Todo", todoInput({ due: input }));
    expect(todo.due).toBe(stored);
    expect((await get("Todo", todo.id))?.due).toBe(stored);
  });

  it("fills defaultNow from the injected clock unless a value is given", async () => {
    expect((await insert("Todo", todoInput())).createdAt).toBe(NOW);
    const given = await insert("Todo", todoInput({ createdAt: "2020-01-01T00:00:00Z" }));
    expect(given.createdAt).toBe("2020-01-01T00:00:00.000Z");
  });

  it("stamps defaultNow with the clock's time at each write, whichever way it moves", async () => {
    let current = Date.parse("2030-06-01T12:00:00.000Z");
    const store = fixture().reopen({ clock: () => new Date(current) });
    const stamp = async () =>
      (await store.transaction(adminAuth, (db) => db.insert("Todo", todoInput()))).createdAt;
    expect(await stamp()).toBe("2030-06-01T12:00:00.000Z");
    expect(await stamp()).toBe("2030-06-01T12:00:00.000Z");
    current += 1;
    expect(await stamp()).toBe("2030-06-01T12:00:00.001Z");
    current -= 86_400_000;
    expect(await stamp()).toBe("2030-05-31T12:00:00.001Z");
  });

  it("generates a 40-hex id, or keeps a valid custom one", async () => {
    expect((await insert("List", { title: "a" })).id).toMatch(/^[0-9a-f]{40}$/);
    expect((await insert("List", { id: idOf(7), title: "b" })).id).toBe(idOf(7));
    await expectStoreError(insert("List", { id: "ABC", title: "c" }), "INVALID_ID");
  });

  it("gets null for a missing row and INVALID_ID for a malformed id", async () => {
    expect(await get("List", idOf(1))).toBeNull();
    await expectStoreError(get("List", "not-an-id"), "INVALID_ID");
  });

  it("updates only the given fields and returns the stored row", async () => {
    const todo = await insert("Todo", todoInput({ points: 1 }));
    const updated = await fixture().store.transaction(adminAuth, (db) =>
      db.update("Todo", todo.id, { done: true, points: null, due: "2025-01-01T00:00:00-01:00" }),
    );
    expect(updated).toStrictEqual({
      ...todo,
      done: true,
      points: null,
      due: "2025-01-01T01:00:00.000Z",
    });
    expect(await get("Todo", todo.id)).toStrictEqual(updated);
  });

  it("deletes a row", async () => {
    const list = await insert("List", { title: "x" });
    await fixture().store.transaction(adminAuth, (db) => db.delete("List", list.id));
    expect(await get("List", list.id)).toBeNull();
  });

  it.each([
    [
      "update",
      (id: string) =>
        fixture().store.transaction(adminAuth, (db) => db.update("List", id, { title: "y" })),
    ],
    [
      "delete",
      (id: string) => fixture().store.transaction(adminAuth, (db) => db.delete("List", id)),
    ],
  ])("answers NOT_FOUND to %s of a missing row", async (_op, run) => {
    const error = await expectStoreError(run(idOf(9)), "NOT_FOUND");
    expect(error.status).toBe(404);
  });

  it.each([
    ["get", () => get("Ghost", idOf(1))],
    ["query", () => fixture().store.reader(adminAuth).query("Ghost")],
    ["insert", () => insert("Ghost", {})],
  ])("answers ENTITY_NOT_FOUND to %s of an unknown entity", async (_op, run) => {
    const error = await expectStoreError(run(), "ENTITY_NOT_FOUND");
    expect(error).toMatchObject({
      status: 404,
      expose: true,
      message: "There is no entity named Ghost.",
    });
  });

  it("answers ping and empties every table with truncateAll, references included", async () => {
    await fixture().store.ping();
    const list = await insert("List", { title: "l" });
    await insert("Todo", todoInput({ listId: list.id }));
    const parent = await insert("Node", { label: "p" });
    await insert("Node", { label: "c", parentId: parent.id });
    await fixture().store.truncateAll();
    for (const entity of ["List", "Todo", "Node"]) {
      expect((await fixture().store.reader(adminAuth).query(entity)).rows).toEqual([]);
    }
  });

  it("reports an unusable database as DATABASE_ERROR without driver text, keeping the cause", async () => {
    const store = fixture().reopen();
    await store.ping();
    await store.close();
    const error = await expectStoreError(
      store.reader(adminAuth).get("List", idOf(1)),
      "DATABASE_ERROR",
    );
    expect(error).toMatchObject({
      status: 500,
      message: "The database could not complete the request.",
    });
    expect(error.cause).toBeInstanceOf(Error);
  });
});
