import { describe, expect, it, vi } from "vitest";
import { adminAuth, createAuthContext, StoreError } from "../src/index.js";
import { databases, todoInput, useStore } from "./fixture.js";

describe.each(databases)("before-delete hooks on $name", (database) => {
  const fixture = useStore(database);

  it("runs in the delete's transaction, before the reference check, with admin rights", async () => {
    const { store } = fixture();
    const list = await store.transaction(adminAuth, (db) => db.insert("List", { title: "home" }));
    await store.transaction(adminAuth, (db) => db.insert("Todo", todoInput({ listId: list.id })));
    const seen = vi.fn();
    store.onBeforeDelete("List", async ({ row, db, auth }) => {
      seen(row.id, auth.userId);
      // Detach what references the list, so the delete is allowed.
      const todos = await db.query("Todo", { where: { listId: row.id } });
      for (const todo of todos.rows) await db.update("Todo", todo.id, { listId: null });
    });
    const caller = createAuthContext({ isAdmin: true, userId: "user-1" });
    await store.transaction(caller, (db) => db.delete("List", list.id));
    expect(seen).toHaveBeenCalledWith(list.id, "user-1");
    const todos = await store.reader(adminAuth).query("Todo");
    expect(todos.rows.map((todo) => todo.listId)).toStrictEqual([null]);
  });

  it("rolls the whole transaction back when a hook throws", async () => {
    const { store } = fixture();
    const list = await store.transaction(adminAuth, (db) => db.insert("List", { title: "keep" }));
    const failure = new Error("not today");
    store.onBeforeDelete("List", async ({ db }) => {
      await db.insert("List", { title: "written by the hook" });
      throw failure;
    });
    await expect(store.transaction(adminAuth, (db) => db.delete("List", list.id))).rejects.toBe(
      failure,
    );
    const lists = await store.reader(adminAuth).query("List");
    expect(lists.rows.map((row) => row.title)).toStrictEqual(["keep"]);
  });

  it("does not run a row's hooks again when a hook deletes that row itself", async () => {
    const { store } = fixture();
    const list = await store.transaction(adminAuth, (db) => db.insert("List", { title: "x" }));
    let calls = 0;
    store.onBeforeDelete("List", async ({ row, db }) => {
      calls++;
      await db.delete("List", row.id);
    });
    const events = vi.fn();
    store.onChange(events);
    // The hook deleted the row first: the outer delete is then already done.
    await store.transaction(adminAuth, (db) => db.delete("List", list.id));
    expect(calls).toBe(1);
    expect(events.mock.calls[0]?.[0]).toHaveLength(1);
    expect((await store.reader(adminAuth).query("List")).rows).toStrictEqual([]);
  });

  it("stops running after it is unregistered, and refuses an unknown entity", () => {
    const { store } = fixture();
    const hook = vi.fn(async () => {});
    const off = store.onBeforeDelete("List", hook);
    off();
    expect(() => store.onBeforeDelete("Nope", hook)).toThrow(StoreError);
  });

  it("does not run for a delete the caller's policy refuses", async () => {
    const { store } = fixture();
    const list = await store.transaction(adminAuth, (db) => db.insert("List", { title: "x" }));
    const hook = vi.fn(async () => {});
    store.onBeforeDelete("List", hook);
    const stranger = createAuthContext({ userId: "someone" });
    await expect(
      store.transaction(stranger, (db) => db.delete("List", list.id)),
    ).rejects.toBeInstanceOf(StoreError);
    expect(hook).not.toHaveBeenCalled();
  });
});
