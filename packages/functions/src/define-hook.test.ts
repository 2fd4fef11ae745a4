import { adminAuth, createAuthContext, type Store } from "@svc/store";
import { describe, expect, it } from "vitest";
import { memoryStores } from "../test/memory-stores.js";
import { manifest } from "../test/runner-fixture.js";
import { createFunctionRunner } from "./create-function-runner.js";
import { mutation } from "./define-function.js";
import { hook } from "./define-hook.js";
import { FunctionsError } from "./errors.js";
import type { FunctionFileDefinition } from "./function-registry.js";

// The fixture manifest has no policies: an admin acting for u1 may delete.
const userAuth = createAuthContext({ isAdmin: true, userId: "u1" });

const storeWith = memoryStores(manifest);

const remove = mutation({
  handler: async (ctx, args) => {
    await ctx.db.delete("Todo", String(args.id));
    return null;
  },
});

/** A runner of `remove` (a mutation that deletes a Todo) and the hook `name`. */
function runnerWithRemove(store: Store, name: string, onDelete: FunctionFileDefinition) {
  return createFunctionRunner({
    store,
    functions: new Map<string, FunctionFileDefinition>([
      ["remove", remove],
      [name, onDelete],
    ]),
  });
}

describe("hook()", () => {
  it("runs before every delete of its entity, in the transaction, with admin rights in db", async () => {
    const store = await storeWith();
    const seen: string[] = [];
    const runner = runnerWithRemove(
      store,
      "onTodoDelete",
      hook({
        on: { delete: { entity: "Todo" } },
        handler: async (ctx, { row }) => {
          seen.push(`${String(row.title)} by ${String(ctx.auth.userId)}`);
          await ctx.db.insert("Todo", {
            title: `tombstone of ${String(row.title)}`,
            done: true,
          });
        },
      }),
    );
    const todo = await store.transaction(adminAuth, (db) =>
      db.insert("Todo", { title: "a", done: false }),
    );
    await runner.run("remove", { id: todo.id }, userAuth);
    expect(seen).toStrictEqual(["a by u1"]);
    const titles = (await store.reader(adminAuth).query("Todo")).rows.map((row) => row.title);
    expect(titles).toStrictEqual(["tombstone of a"]);
  });

  it("rolls the delete back when the hook refuses with ctx.error, which reaches the caller", async () => {
    const store = await storeWith();
    const runner = runnerWithRemove(
      store,
      "keepDone",
      hook({
        on: { delete: { entity: "Todo" } },
        handler: (ctx, { row }) => {
          if (row.done === true) ctx.error("TODO_LOCKED", "Done todos are kept.", 409);
        },
      }),
    );
    const todo = await store.transaction(adminAuth, (db) =>
      db.insert("Todo", { title: "a", done: true }),
    );
    await expect(runner.run("remove", { id: todo.id }, userAuth)).rejects.toMatchObject({
      code: "TODO_LOCKED",
      status: 409,
    });
    expect((await store.reader(adminAuth).query("Todo")).rows).toHaveLength(1);
  });

  it("is not callable over the runner, and refuses an entity the manifest lacks", async () => {
    const store = await storeWith();
    const onDelete = hook({ on: { delete: { entity: "Todo" } }, handler: () => {} });
    const runner = createFunctionRunner({
      store,
      functions: new Map<string, FunctionFileDefinition>([["onDelete", onDelete]]),
    });
    expect(runner.has("onDelete")).toBe(false);
    await expect(runner.run("onDelete", {}, userAuth)).rejects.toMatchObject({
      code: "FUNCTION_NOT_FOUND",
    });
    const stray = hook({ on: { delete: { entity: "Nope" } }, handler: () => {} });
    expect(() =>
      createFunctionRunner({
        store,
        functions: new Map<string, FunctionFileDefinition>([["stray", stray]]),
      }),
    ).toThrow(FunctionsError);
  });

  it("accepts a plain import-free hook object and refuses one without an entity", async () => {
    const store = await storeWith();
    const plain = { type: "hook", on: { delete: { entity: "Todo" } }, handler: async () => {} };
    expect(() =>
      createFunctionRunner({
        store,
        functions: new Map<string, FunctionFileDefinition>([["plain", plain as never]]),
      }),
    ).not.toThrow();
    const broken = { type: "hook", on: {}, handler: async () => {} };
    expect(() =>
      createFunctionRunner({
        store,
        functions: new Map<string, FunctionFileDefinition>([["broken", broken as never]]),
      }),
    ).toThrow(/needs "on"/);
  });
});
