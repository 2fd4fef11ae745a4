import { describe, expect, it, vi } from "vitest";
import {
  adminAuth,
  anonymousAuth,
  type ChangeEvent,
  createAuthContext,
  type EntityWriter,
  StoreError,
} from "../src/index.js";
import { databases, expectStoreError, todoInput, useStore } from "./fixture.js";

describe.each(databases)("store contract on $name: transactions and events", (database) => {
  const fixture = useStore(database);
  const listAll = async (entity: string) =>
    (await fixture().store.reader(adminAuth).query(entity)).rows;

  it("rolls back every write when the work throws, and emits nothing", async () => {
    const listener = vi.fn();
    fixture().store.onChange(listener);
    const existing = await fixture().store.transaction(adminAuth, (db) =>
      db.insert("List", { title: "keep" }),
    );
    listener.mockClear();
    const failure = new Error("work failed");
    await expect(
      fixture().store.transaction(adminAuth, async (db) => {
        await db.insert("List", { title: "gone" });
        await db.update("List", existing.id, { title: "changed" });
        await db.delete("List", existing.id);
        throw failure;
      }),
    ).rejects.toBe(failure);
    expect(await listAll("List")).toStrictEqual([existing]);
    expect(listener).not.toHaveBeenCalled();
  });

  it("emits one batch after commit, in write order, with rows before and after", async () => {
    const batches: (readonly ChangeEvent[])[] = [];
    fixture().store.onChange((events) => batches.push(events));
    const { inserted, updated } = await fixture().store.transaction(adminAuth, async (db) => {
      const inserted = await db.insert("List", { title: "a" });
      const updated = await db.update("List", inserted.id, { title: "b" });
      await db.delete("List", inserted.id);
      expect(batches).toEqual([]);
      return { inserted, updated };
    });
    expect(batches).toStrictEqual([
      [
        { entity: "List", op: "insert", id: inserted.id, row: inserted, previous: null },
        { entity: "List", op: "update", id: inserted.id, row: updated, previous: inserted },
        { entity: "List", op: "delete", id: inserted.id, row: null, previous: updated },
      ],
    ]);
  });

  it("does not emit for a transaction that only reads", async () => {
    const listener = vi.fn();
    fixture().store.onChange(listener);
    await fixture().store.transaction(adminAuth, (db) => db.query("List"));
    expect(listener).not.toHaveBeenCalled();
  });

  it("keeps a throwing listener from failing the caller or the other listeners", async () => {
    const reported: unknown[] = [];
    const store = fixture().reopen({ onListenerError: (error) => reported.push(error) });
    const boom = new Error("listener failed");
    const after = vi.fn();
    store.onChange(() => {
      throw boom;
    });
    store.onChange(after);
    const row = await store.transaction(adminAuth, (db) => db.insert("List", { title: "x" }));
    expect(row.title).toBe("x");
    expect(after).toHaveBeenCalledTimes(1);
    expect(reported).toEqual([boom]);
  });

  it("stops calling a listener once it unsubscribes", async () => {
    const listener = vi.fn();
    const unsubscribe = fixture().store.onChange(listener);
    unsubscribe();
    await fixture().store.transaction(adminAuth, (db) => db.insert("List", { title: "x" }));
    expect(listener).not.toHaveBeenCalled();
  });

  it("refuses writes through a writer whose transaction has finished", async () => {
    let leaked: EntityWriter | undefined;
    await fixture().store.transaction(adminAuth, async (db) => {
      leaked = db;
    });
    const error = await leaked
      ?.insert("List", { title: "late" })
      .catch((reason: unknown) => reason);
    expect(error).toBeInstanceOf(StoreError);
    expect(error).toMatchObject({ code: "TRANSACTION_FINISHED", expose: false });
    expect(await listAll("List")).toEqual([]);
  });

  it("refuses to use the store itself inside its own transaction (SQLite would wait forever)", async () => {
    const store = fixture().store;
    const codes = await store.transaction(adminAuth, async (db) => {
      await db.insert("List", { title: "inside" });
      const attempts = [
        () => store.reader(adminAuth).query("List"),
        () => store.transaction(adminAuth, (inner) => inner.query("List")),
      ];
      const outcomes: unknown[] = [];
      for (const attempt of attempts)
        outcomes.push(await attempt().catch((error: unknown) => error));
      return outcomes.map((error) => (error instanceof StoreError ? error.code : error));
    });
    expect(codes).toEqual(["NESTED_TRANSACTION", "NESTED_TRANSACTION"]);
    expect((await store.reader(adminAuth).query("List")).rows).toHaveLength(1);
  });

  it("runs writes issued without awaiting one at a time, in call order", async () => {
    const rows = await fixture().store.transaction(adminAuth, (db) =>
      Promise.all([1, 2, 3, 4].map((n) => db.insert("List", { title: `t${n}` }))),
    );
    expect(rows.map((row) => row.title)).toEqual(["t1", "t2", "t3", "t4"]);
    expect(await listAll("List")).toHaveLength(4);
  });

  it("gives readers no write methods", () => {
    const reader = fixture().store.reader(adminAuth);
    expect(Object.keys(reader).sort()).toEqual(["get", "query"]);
  });

  describe("access (deny by default: Todo has no policy here)", () => {
    const callers = [
      ["an anonymous caller", anonymousAuth],
      ["a signed-in user", createAuthContext({ userId: "user-1", roles: ["owner"] })],
      ["a guest", createAuthContext({ userId: "guest-1", isGuest: true })],
    ] as const;

    it.each(callers)(
      "denies %s every read and write with 403 POLICY_DENIED",
      async (_label, auth) => {
        const todo = await fixture().store.transaction(adminAuth, (db) =>
          db.insert("Todo", todoInput()),
        );
        const store = fixture().store;
        const attempts = [
          () => store.reader(auth).get("Todo", todo.id),
          () => store.reader(auth).query("Todo"),
          () => store.transaction(auth, (db) => db.get("Todo", todo.id)),
          () =>
            store.transaction(auth, (db) =>
              db.insert("Todo", todoInput({ ownerId: auth.userId ?? "x" })),
            ),
          () => store.transaction(auth, (db) => db.update("Todo", todo.id, { done: true })),
          () => store.transaction(auth, (db) => db.delete("Todo", todo.id)),
        ];
        for (const attempt of attempts) {
          const error = await expectStoreError(attempt(), "POLICY_DENIED");
          expect(error).toMatchObject({ status: 403, expose: true });
          expect(error.message).toMatch(/^No policy of Todo allows (read|insert|update|delete);/);
        }
        expect(await listAll("Todo")).toStrictEqual([todo]);
      },
    );
  });
});
