import { describe, expect, it } from "vitest";
import {
  adminAuth,
  createStore,
  DEFAULT_MAX_FIELD_BYTES,
  DEFAULT_MAX_ROW_BYTES,
  type Row,
  type Store,
  StoreError,
} from "../src/index.js";
import { databases, expectStoreError, manifestOf, todoInput, useStore } from "./fixture.js";
import { testManifest } from "./manifests.js";

/** Todo of the contract suite, plus an entity whose fields carry their own bounds. */
const manifest = testManifest("sizes", [
  {
    name: "Todo",
    fields: [
      { name: "title", type: "string" },
      { name: "done", type: "bool" },
      { name: "ownerId", type: "string", owner: true },
      { name: "priority", type: "enum", values: ["low", "high"] },
      { name: "meta", type: "json", optional: true },
    ],
  },
  {
    name: "Note",
    fields: [
      { name: "short", type: "string", maxBytes: 10 },
      { name: "long", type: "string", optional: true, maxBytes: 200 * 1024 },
      { name: "data", type: "json", optional: true, maxBytes: 18 },
    ],
  },
  {
    name: "Pair",
    fields: [
      { name: "a", type: "string", optional: true },
      { name: "b", type: "string", optional: true },
    ],
  },
]);

describe.each(databases)("store contract on $name: field and row sizes", (database) => {
  const fixture = useStore(database, { manifest });
  const insert = (entity: string, data: Record<string, unknown>, store?: Store) =>
    (store ?? fixture().store).transaction(adminAuth, (db) => db.insert(entity, data));
  const update = (entity: string, id: string, patch: Record<string, unknown>, store?: Store) =>
    (store ?? fixture().store).transaction(adminAuth, (db) => db.update(entity, id, patch));
  const read = (entity: string, id: string) => fixture().store.reader(adminAuth).get(entity, id);

  it("defaults to 64 KiB per string or json value and 1 MiB per row", () => {
    expect(DEFAULT_MAX_FIELD_BYTES).toBe(64 * 1024);
    expect(DEFAULT_MAX_ROW_BYTES).toBe(1024 * 1024);
  });

  // Regression (issue 21, finding 2): a caller could store a 1,000,000-character title.
  it("refuses a 1,000,000-character title with 413 FIELD_TOO_LARGE, and stores nothing", async () => {
    const error = await expectStoreError(
      insert("Todo", todoInput({ title: "x".repeat(1_000_000) })),
      "FIELD_TOO_LARGE",
    );
    expect(error).toMatchObject({ status: 413, expose: true });
    expect(error.message).toBe("Field Todo.title must be at most 65536 bytes.");
    expect((await fixture().store.reader(adminAuth).query("Todo")).rows).toEqual([]);
  });

  it("accepts a string of exactly the default bound and refuses one byte more", async () => {
    const row = await insert("Todo", todoInput({ title: "x".repeat(DEFAULT_MAX_FIELD_BYTES) }));
    expect((row.title as string).length).toBe(DEFAULT_MAX_FIELD_BYTES);
    await expectStoreError(
      insert("Todo", todoInput({ title: "x".repeat(DEFAULT_MAX_FIELD_BYTES + 1) })),
      "FIELD_TOO_LARGE",
    );
  });

  it("counts bytes of UTF-8, not characters", async () => {
    // 32,769 characters of two bytes each: 65,538 bytes.
    const error = await expectStoreError(
      insert("Todo", todoInput({ title: "é".repeat(32_769) })),
      "FIELD_TOO_LARGE",
    );
    expect(error.status).toBe(413);
    // 16,384 four-byte characters (two UTF-16 units each): exactly 65,536 bytes.
    await insert("Todo", todoInput({ title: "😀".repeat(16_384) }));
  });

  it("bounds a json value by its JSON text", async () => {
    const big = { items: Array.from({ length: 10_000 }, (_, i) => `item-${i}`) };
    expect(JSON.stringify(big).length).toBeGreaterThan(DEFAULT_MAX_FIELD_BYTES);
    const error = await expectStoreError(
      insert("Todo", todoInput({ meta: big })),
      "FIELD_TOO_LARGE",
    );
    expect(error.message).toBe("Field Todo.meta must be at most 65536 bytes.");
  });

  it("refuses an update past the bound and leaves the row as it was", async () => {
    const row = await insert("Todo", todoInput({ title: "small" }));
    await expectStoreError(
      update("Todo", row.id, { title: "x".repeat(DEFAULT_MAX_FIELD_BYTES + 1) }),
      "FIELD_TOO_LARGE",
    );
    await expectStoreError(
      update("Todo", row.id, { meta: "x".repeat(DEFAULT_MAX_FIELD_BYTES) }),
      "FIELD_TOO_LARGE",
    );
    expect(await read("Todo", row.id)).toMatchObject({ title: "small", meta: null });
  });

  it("applies a field's own maxBytes, below or above the store's default", async () => {
    await insert("Note", { short: "x".repeat(10) });
    const short = await expectStoreError(
      insert("Note", { short: "x".repeat(11) }),
      "FIELD_TOO_LARGE",
    );
    expect(short.message).toBe("Field Note.short must be at most 10 bytes.");
    await insert("Note", { short: "ok", long: "x".repeat(150 * 1024) });
    await expectStoreError(
      insert("Note", { short: "ok", long: "x".repeat(200 * 1024 + 1) }),
      "FIELD_TOO_LARGE",
    );
    // {"a":"1234567890"} is 18 bytes of JSON text, {"a":"12345678901"} 19.
    await insert("Note", { short: "ok", data: { a: "1234567890" } });
    await expectStoreError(
      insert("Note", { short: "ok", data: { a: "12345678901" } }),
      "FIELD_TOO_LARGE",
    );
  });

  it("takes the store-wide bound from maxFieldBytes", async () => {
    const store = fixture().reopen({ maxFieldBytes: 100 });
    await insert("Todo", todoInput({ title: "x".repeat(100) }), store);
    const error = await expectStoreError(
      insert("Todo", todoInput({ title: "x".repeat(101) }), store),
      "FIELD_TOO_LARGE",
    );
    expect(error.message).toBe("Field Todo.title must be at most 100 bytes.");
    // A field's own maxBytes wins over the store's default.
    await insert("Note", { short: "ok", long: "x".repeat(1000) }, store);
  });

  it("bounds a row's string and json values together with maxRowBytes", async () => {
    const store = fixture().reopen({ maxFieldBytes: 100, maxRowBytes: 150 });
    const row = await insert("Pair", { a: "x".repeat(100), b: "y".repeat(50) }, store);
    const error = await expectStoreError(
      insert("Pair", { a: "x".repeat(100), b: "y".repeat(51) }, store),
      "ROW_TOO_LARGE",
    );
    expect(error).toMatchObject({
      status: 413,
      message: "The string and json values of a Pair must be at most 150 bytes together.",
    });
    // An update counts the fields it leaves as they are.
    await expectStoreError(update("Pair", row.id, { b: "y".repeat(51) }, store), "ROW_TOO_LARGE");
    const shrunk: Row = await update("Pair", row.id, { a: "x", b: "y".repeat(100) }, store);
    expect(shrunk).toMatchObject({ a: "x", b: "y".repeat(100) });
  });

  it("lets a row stored before a smaller bound shrink, and an empty patch through", async () => {
    const row = await insert("Pair", { a: "x".repeat(100), b: "y".repeat(100) });
    const store = fixture().reopen({ maxFieldBytes: 100, maxRowBytes: 150 });
    expect(await update("Pair", row.id, {}, store)).toMatchObject({ a: "x".repeat(100) });
    await expectStoreError(update("Pair", row.id, { a: "z".repeat(60) }, store), "ROW_TOO_LARGE");
    expect(await update("Pair", row.id, { a: null }, store)).toMatchObject({ a: null });
  });

  it.each([
    ["maxFieldBytes 0", { maxFieldBytes: 0 }],
    ["a fractional maxRowBytes", { maxRowBytes: 1.5 }],
    ["a cursorSecret shorter than 16 bytes", { cursorSecret: "short" }],
  ])("refuses %s with the local INVALID_OPTION", (_label, options) => {
    const { database: db } = fixture();
    let thrown: unknown;
    try {
      createStore({ ...db, manifest: manifestOf(manifest), ...options });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(StoreError);
    expect(thrown).toMatchObject({ code: "INVALID_OPTION", status: undefined, expose: false });
  });
});
