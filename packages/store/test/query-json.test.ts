import type { KyselyPlugin } from "kysely";
import { describe, expect, it } from "vitest";
import {
  type AuthContext,
  adminAuth,
  createAuthContext,
  createStore,
  type QueryOptions,
  type Row,
  type Store,
} from "../src/index.js";
import { databases, expectStoreError, idOf, manifestOf, useStore } from "./fixture.js";
import { testManifest } from "./manifests.js";

// `queryJSON` must answer exactly `JSON.stringify(reader.query(...).rows)`
// and the same cursor, whether the database writes the text (entities
// without float or json fields, sorted by id) or the rows are stringified.

const manifest = testManifest(
  "query-json",
  [
    {
      name: "Item",
      fields: [
        { name: "name", type: "string" },
        { name: "count", type: "int" },
        { name: "active", type: "bool", optional: true },
        { name: "at", type: "datetime", optional: true },
        { name: "createdAt", type: "datetime", defaultNow: true },
        { name: "parentId", type: "id", target: "Item", optional: true },
        { name: "size", type: "enum", values: ["s", "m", "l"] },
        { name: "attachment", type: "file", optional: true },
        { name: "note", type: "string", optional: true },
        { name: "ownerId", type: "string", owner: true },
      ],
    },
    {
      name: "Measure",
      fields: [
        { name: "label", type: "string" },
        { name: "value", type: "float", optional: true },
        { name: "data", type: "json", optional: true },
        { name: "ok", type: "bool" },
      ],
    },
    { name: "Secret", fields: [{ name: "text", type: "string" }] },
  ],
  {
    policies: [
      {
        name: "own items",
        entity: "Item",
        allowRead: "auth.userId == data.ownerId",
      },
      { name: "measures", entity: "Measure", allowRead: "true" },
    ],
  },
);

/** Strings that JSON escapes in every way it can. */
const nastyStrings = [
  "plain",
  "",
  'quote " and backslash \\ and slash /',
  "controls \u0001\u0008\t\n\u000b\f\r\u001f\u007f",
  "line separators \u2028\u2029, BOM \ufeff",
  "unicode é ß 中文 😀 \u{1f600}\u{10ffff}",
  '{"id":"0000000000000000000000000000000000000000"}',
  "</script><!--",
];

const counts = [0, 1, -1, 42, Number.MAX_SAFE_INTEGER, Number.MIN_SAFE_INTEGER, 1_000_000];
const datetimes = [
  null,
  "0001-01-01T00:00:00.000Z",
  "9999-12-31T23:59:59.999Z",
  "2024-02-29T12:00:00.000Z",
  "2024-05-01T10:00:00.500Z",
];

const alice = createAuthContext({ userId: "alice" });

async function seedItems(store: Store, total: number): Promise<Row[]> {
  return store.transaction(adminAuth, async (tx) => {
    const rows: Row[] = [];
    for (let i = 0; i < total; i += 1) {
      rows.push(
        await tx.insert("Item", {
          id: idOf(1000 + i * 7),
          name: nastyStrings[i % nastyStrings.length],
          count: counts[i % counts.length],
          active: i % 3 === 0 ? null : i % 3 === 1,
          at: datetimes[i % datetimes.length],
          parentId: i > 0 && i % 4 === 0 ? idOf(1000) : null,
          size: ["s", "m", "l"][i % 3],
          attachment: i % 5 === 0 ? idOf(77) : null,
          note: i % 2 === 0 ? null : `note ${i}`,
          ownerId: i % 2 === 0 ? "alice" : "bob",
        }),
      );
    }
    return rows;
  });
}

async function seedMeasures(store: Store): Promise<void> {
  const values = [0.1, 1 / 3, 5, -0, 1e21, 1e-7, 123.456, null];
  const data = [{ b: 1, a: [1.5, "x", null, true] }, null, "text", 3.25, [], { "": {} }];
  await store.transaction(adminAuth, async (tx) => {
    for (let i = 0; i < 12; i += 1) {
      await tx.insert("Measure", {
        label: nastyStrings[i % nastyStrings.length],
        value: values[i % values.length],
        data: data[i % data.length],
        ok: i % 2 === 0,
      });
    }
  });
}

/**
 * Reads every page both ways, checking each pair is identical and, when
 * `spy` is given, whether the database wrote the text; answers the pages read.
 */
async function compareAllPages(
  store: Store,
  auth: AuthContext,
  entity: string,
  options: QueryOptions,
  spy?: { readonly tracker: JSONSpy; readonly expectBuilt: boolean },
): Promise<number> {
  let cursor: string | undefined;
  let pages = 0;
  for (;;) {
    const paged = { ...options, ...(cursor !== undefined && { cursor }) };
    const rows = await store.reader(auth).query(entity, paged);
    spy?.tracker.reset();
    const text = await store.queryJSON(auth, entity, paged);
    if (spy !== undefined) expect(spy.tracker.built()).toBe(spy.expectBuilt);
    expect(text.json).toBe(JSON.stringify(rows.rows));
    expect(text.nextCursor).toBe(rows.nextCursor);
    pages += 1;
    if (text.nextCursor === null) return pages;
    cursor = text.nextCursor;
  }
}

/**
 * Records whether the database wrote a page's JSON: the aggregate was
 * built and one query ran (a fallback to the row path runs a second).
 * Kysely hands plugins every subquery too, so queries are counted by result.
 */
interface JSONSpy {
  readonly plugin: KyselyPlugin;
  built(): boolean;
  reset(): void;
}

function jsonSpy(): JSONSpy {
  let aggregate = false;
  let executed = 0;
  return {
    plugin: {
      transformQuery({ node }) {
        if (/json_group_array|string_agg/.test(JSON.stringify(node))) aggregate = true;
        return node;
      },
      transformResult: async ({ result }) => {
        executed += 1;
        return result;
      },
    },
    built: () => aggregate && executed === 1,
    reset: () => {
      aggregate = false;
      executed = 0;
    },
  };
}

describe.each(databases)("queryJSON on $name", (database) => {
  const fixture = useStore(database, { manifest });

  /** A second store on the fixture's database whose reads the spy sees. */
  const spiedStore = (): { store: Store; tracker: JSONSpy } => {
    const tracker = jsonSpy();
    const opened = fixture().database;
    const store = createStore({
      ...opened,
      readDb: opened.readDb.withPlugin(tracker.plugin),
      manifest: manifestOf(manifest),
    });
    return { store, tracker };
  };

  it.each([
    { limit: 1 },
    { limit: 7 },
    { limit: 57 },
    { limit: 58 },
    {},
    { limit: 1000 },
    { limit: 5, orderBy: { field: "id", direction: "desc" } },
    { limit: 6, where: { active: true } },
    { limit: 6, where: { active: null } },
    { limit: 3, where: { size: "m", note: null } },
    { limit: 4, orderBy: { field: "count" } },
    { limit: 4, orderBy: { field: "at", direction: "desc" } },
    { limit: 9, orderBy: { field: "name" } },
  ] satisfies QueryOptions[])(
    "answers the same bytes and cursors as the rows: %o",
    async (options: QueryOptions) => {
      await seedItems(fixture().store, 57);
      const { store, tracker } = spiedStore();
      // The database writes the text of pages sorted by id; others are stringified.
      const field = options.orderBy?.field;
      const expectBuilt = field === undefined || field === "id";
      const pages = await compareAllPages(store, adminAuth, "Item", options, {
        tracker,
        expectBuilt,
      });
      expect(pages).toBeGreaterThan(0);
    },
  );

  it("answers the same for a caller whose read policy filters rows", async () => {
    await seedItems(fixture().store, 40);
    const { store, tracker } = spiedStore();
    expect(
      await compareAllPages(store, alice, "Item", { limit: 6 }, { tracker, expectBuilt: true }),
    ).toBe(4);
    const first = await store.queryJSON(alice, "Item", { limit: 100 });
    const rows = JSON.parse(first.json) as Row[];
    expect(rows).toHaveLength(20);
    expect(rows.every((row) => row.ownerId === "alice")).toBe(true);
  });

  it("answers an empty page as [] without a cursor", async () => {
    const { store } = fixture();
    expect(await store.queryJSON(adminAuth, "Item")).toStrictEqual({
      json: "[]",
      nextCursor: null,
    });
    expect(await store.queryJSON(alice, "Item", { where: { name: "none" } })).toStrictEqual({
      json: "[]",
      nextCursor: null,
    });
  });

  it("stringifies the rows of entities with float or json fields, the same as before", async () => {
    await seedMeasures(fixture().store);
    const { store, tracker } = spiedStore();
    const spy = { tracker, expectBuilt: false };
    for (const limit of [1, 5, 12, 100]) {
      await compareAllPages(store, adminAuth, "Measure", { limit }, spy);
      await compareAllPages(store, alice, "Measure", { limit, orderBy: { field: "value" } }, spy);
    }
  });

  it("lets the database write the text only for exact field kinds sorted by id", async () => {
    await seedItems(fixture().store, 10);
    await seedMeasures(fixture().store);
    const { store: spied, tracker: spy } = spiedStore();
    const built = async (entity: string, options: QueryOptions): Promise<boolean> => {
      spy.reset();
      await spied.queryJSON(adminAuth, entity, options);
      return spy.built();
    };
    expect(await built("Item", { limit: 3 })).toBe(true);
    expect(await built("Item", { limit: 10 })).toBe(true);
    expect(await built("Item", { limit: 100 })).toBe(true);
    expect(await built("Item", { orderBy: { field: "id", direction: "desc" } })).toBe(true);
    expect(await built("Item", { where: { active: false } })).toBe(true);
    expect(await built("Item", { orderBy: { field: "name" } })).toBe(false);
    expect(await built("Measure", {})).toBe(false);
  });

  it("refuses what query refuses, with the same errors", async () => {
    const { store } = fixture();
    await expectStoreError(store.queryJSON(alice, "Secret"), "POLICY_DENIED");
    await expectStoreError(store.queryJSON(adminAuth, "Nope"), "ENTITY_NOT_FOUND");
    await expectStoreError(store.queryJSON(adminAuth, "Item", { limit: 0 }), "INVALID_QUERY");
    await expectStoreError(
      store.queryJSON(adminAuth, "Item", { where: { count: "many" } }),
      "INVALID_QUERY",
    );
    await expectStoreError(
      store.queryJSON(adminAuth, "Item", { cursor: "not-a-cursor" }),
      "INVALID_CURSOR",
    );
    await expectStoreError(
      store.transaction(adminAuth, () => store.queryJSON(adminAuth, "Item")),
      "NESTED_TRANSACTION",
    );
  });
});
