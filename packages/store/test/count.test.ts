import { createAuthContext } from "@svc/schema";
import { describe, expect, it } from "vitest";
import { adminAuth, anonymousAuth, type CountOptions, type StoreErrorCode } from "../src/index.js";
import { baseManifest, databases, expectStoreError, idOf, todoInput, useStore } from "./fixture.js";

const alice = createAuthContext({ userId: "alice" });

/** The contract manifest with a read policy on Todo: each user sees their own. */
const ownedTodos = {
  ...baseManifest,
  policies: [
    {
      name: "own todos",
      entity: "Todo",
      allowRead: "auth.userId == data.ownerId",
      allowInsert: "auth.userId != null",
    },
  ],
};

describe.each(databases)("store contract on $name: count", (database) => {
  const fixture = useStore(database, { manifest: ownedTodos });
  const seed = (rows: Record<string, unknown>[]) =>
    fixture().store.transaction(adminAuth, async (db) => {
      for (const row of rows) await db.insert("Todo", todoInput(row));
    });

  it("counts the rows a filter matches, as the caller may see them", async () => {
    await seed([
      { id: idOf(1), done: true, ownerId: "alice" },
      { id: idOf(2), done: true, ownerId: "bob", points: 4 },
      { id: idOf(3), done: false, ownerId: "alice" },
      { id: idOf(4), done: false, ownerId: "alice", points: 4 },
    ]);
    const { store } = fixture();
    expect(await store.count(adminAuth, "Todo")).toBe(4);
    expect(await store.count(adminAuth, "Todo", { where: { done: true } })).toBe(2);
    expect(await store.count(adminAuth, "Todo", { where: { points: null } })).toBe(2);
    expect(await store.count(adminAuth, "Todo", { where: { id: idOf(3) } })).toBe(1);
    expect(await store.count(adminAuth, "List")).toBe(0);
    // The read policy applies as it does to a query.
    expect(await store.count(alice, "Todo")).toBe(3);
    expect(await store.count(alice, "Todo", { where: { points: 4 } })).toBe(1);
    expect(await store.count(anonymousAuth, "Todo")).toBe(0);
    // The same rows a query returns.
    const page = await store.reader(alice).query("Todo", { where: { done: false } });
    expect(await store.count(alice, "Todo", { where: { done: false } })).toBe(page.rows.length);
  });

  it("stops counting at max", async () => {
    await seed(Array.from({ length: 7 }, (_, n) => ({ id: idOf(n + 1) })));
    const { store } = fixture();
    expect(await store.count(adminAuth, "Todo", { max: 5 })).toBe(5);
    expect(await store.count(adminAuth, "Todo", { max: 7 })).toBe(7);
    expect(await store.count(adminAuth, "Todo", { max: 100 })).toBe(7);
  });

  it.each<[string, string, CountOptions, StoreErrorCode]>([
    ["an unknown entity", "Nope", {}, "ENTITY_NOT_FOUND"],
    ["an entity without a read policy (anonymous)", "List", {}, "POLICY_DENIED"],
    ["an unknown filter field", "Todo", { where: { colour: "red" } }, "INVALID_QUERY"],
    ["a wrongly typed filter value", "Todo", { where: { done: "yes" } }, "INVALID_QUERY"],
    ["max 0", "Todo", { max: 0 }, "INVALID_QUERY"],
    ["a fractional max", "Todo", { max: 1.5 }, "INVALID_QUERY"],
    ["max over a million", "Todo", { max: 1_000_001 }, "INVALID_QUERY"],
  ])("refuses %s as a query would", async (_label, entity, options, code) => {
    const auth = entity === "List" ? anonymousAuth : adminAuth;
    await expectStoreError(fixture().store.count(auth, entity, options), code);
  });
});
