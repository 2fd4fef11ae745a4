import { describe, expect, it } from "vitest";
import { adminAuth, type QueryOptions, type Row } from "../src/index.js";
import { databases, expectStoreError, idOf, todoInput, useStore } from "./fixture.js";

/** Todo number -> points: ties and nulls, inserted out of id order. */
const POINTS: [number, number | null][] = [
  [5, 3],
  [2, null],
  [8, 1],
  [1, 3],
  [7, null],
  [3, 2],
  [6, 3],
  [4, 1],
];
/** Ascending puts nulls first; equal values go by id. Descending is the exact reverse. */
const ASCENDING = [2, 7, 4, 8, 3, 1, 5, 6];

describe.each(databases)("store contract on $name: queries", (database) => {
  const fixture = useStore(database);
  const query = (entity: string, options?: QueryOptions) =>
    fixture().store.reader(adminAuth).query(entity, options);
  const seed = (rows: Record<string, unknown>[]) =>
    fixture().store.transaction(adminAuth, async (db) => {
      for (const row of rows) await db.insert("Todo", todoInput(row));
    });
  const seedPoints = () => seed(POINTS.map(([n, points]) => ({ id: idOf(n), points })));

  /** Reads every page and returns the ids in order. */
  async function readAll(options: QueryOptions): Promise<string[]> {
    const ids: string[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < 50; page++) {
      const result = await query("Todo", {
        ...options,
        ...(cursor === undefined ? {} : { cursor }),
      });
      expect(result.rows.length).toBeLessThanOrEqual(options.limit ?? 100);
      ids.push(...result.rows.map((row) => row.id));
      if (result.nextCursor === null) return ids;
      cursor = result.nextCursor;
    }
    throw new Error("pagination did not end");
  }

  it.each([1, 2, 3, 8, 100])(
    "pages through ties and nulls ascending with limit %i",
    async (limit) => {
      await seedPoints();
      const ids = await readAll({ orderBy: { field: "points", direction: "asc" }, limit });
      expect(ids).toEqual(ASCENDING.map(idOf));
    },
  );

  it.each([1, 2, 3, 8, 100])(
    "pages through ties and nulls descending with limit %i",
    async (limit) => {
      await seedPoints();
      const ids = await readAll({ orderBy: { field: "points", direction: "desc" }, limit });
      expect(ids).toEqual([...ASCENDING].reverse().map(idOf));
    },
  );

  it("ends with a null cursor exactly on the last page", async () => {
    await seedPoints();
    const first = await query("Todo", { limit: 4 });
    expect(first.rows.map((row) => row.id)).toEqual([1, 2, 3, 4].map(idOf));
    const second = await query("Todo", { limit: 4, cursor: first.nextCursor ?? "" });
    expect(second.rows.map((row) => row.id)).toEqual([5, 6, 7, 8].map(idOf));
    expect(second.nextCursor).toBeNull();
  });

  it("sorts by id by default, and by id descending on request", async () => {
    await seedPoints();
    expect((await query("Todo")).rows.map((row) => row.id)).toEqual(
      [1, 2, 3, 4, 5, 6, 7, 8].map(idOf),
    );
    expect(await readAll({ orderBy: { field: "id", direction: "desc" }, limit: 3 })).toEqual(
      [8, 7, 6, 5, 4, 3, 2, 1].map(idOf),
    );
  });

  it.each<[string, unknown[], unknown[]]>([
    ["title", ["b", "B", "a", "é", "Z", "aa", "", "~"], ["", "B", "Z", "a", "aa", "b", "~", "é"]],
    ["done", [true, false, true], [false, true, true]],
    ["score", [1.5, -2, 0, -0.5, 10], [-2, -0.5, 0, 1.5, 10]],
    ["priority", ["low", "high", "low"], ["high", "low", "low"]],
    [
      "due",
      ["2024-01-01T10:00:00+05:00", "2024-01-01T06:00:00Z", "2023-12-31T23:00:00-08:00", null],
      [null, "2024-01-01T05:00:00.000Z", "2024-01-01T06:00:00.000Z", "2024-01-01T07:00:00.000Z"],
    ],
  ])(
    "orders %s the same way on every dialect (bytewise text, false < true, instants)",
    async (field, values, sorted) => {
      await seed(values.map((value) => ({ [field]: value })));
      const all = async (direction: "asc" | "desc") => {
        const values: unknown[] = [];
        let cursor: string | null = null;
        do {
          const page: { rows: Row[]; nextCursor: string | null } = await query("Todo", {
            orderBy: { field, direction },
            limit: 2,
            ...(cursor === null ? {} : { cursor }),
          });
          values.push(...page.rows.map((row) => row[field]));
          cursor = page.nextCursor;
        } while (cursor !== null);
        return values;
      };
      expect(await all("asc")).toEqual(sorted);
      expect(await all("desc")).toEqual([...sorted].reverse());
    },
  );

  it("filters by equality, null and id, combined", async () => {
    await seed([
      { id: idOf(1), done: true, priority: "high" },
      { id: idOf(2), done: true, priority: "low", points: 4 },
      { id: idOf(3), done: false, priority: "high" },
    ]);
    const ids = async (where: Record<string, unknown>) =>
      (await query("Todo", { where })).rows.map((row) => row.id);
    expect(await ids({ done: true })).toEqual([idOf(1), idOf(2)]);
    expect(await ids({ done: true, priority: "high" })).toEqual([idOf(1)]);
    expect(await ids({ points: null })).toEqual([idOf(1), idOf(3)]);
    expect(await ids({ points: 4 })).toEqual([idOf(2)]);
    expect(await ids({ id: idOf(3) })).toEqual([idOf(3)]);
    expect(await ids({ createdAt: "2024-01-02T05:04:05.678+02:00" })).toEqual([1, 2, 3].map(idOf));
  });

  it("returns 100 rows by default", async () => {
    await fixture().store.transaction(adminAuth, async (db) => {
      for (let n = 0; n < 101; n++) await db.insert("List", { title: `l${n}` });
    });
    const page = await query("List");
    expect(page.rows).toHaveLength(100);
    expect(page.nextCursor).not.toBeNull();
  });

  it.each<[string, QueryOptions, string]>([
    [
      "an unknown filter field",
      { where: { colour: "red" } },
      "Todo has no field colour to filter on.",
    ],
    ["a json filter", { where: { meta: {} } }, "Todo.meta is json and cannot be filtered."],
    [
      "a wrongly typed filter value",
      { where: { done: "yes" } },
      "The filter value of Todo.done must be true or false.",
    ],
    ["a malformed id filter", { where: { id: "x" } }, "The id filter must be a record id."],
    [
      "an unknown sort field",
      { orderBy: { field: "colour" } },
      "Todo has no field colour to sort by.",
    ],
    [
      "a json sort field",
      { orderBy: { field: "meta" } },
      "Todo.meta is json and cannot be sorted.",
    ],
    [
      "a bad direction",
      { orderBy: { field: "title", direction: "up" as "asc" } },
      "The sort direction must be asc or desc.",
    ],
    ["limit 0", { limit: 0 }, "The limit must be an integer from 1 to 1000."],
    ["limit 1001", { limit: 1001 }, "The limit must be an integer from 1 to 1000."],
    ["a fractional limit", { limit: 2.5 }, "The limit must be an integer from 1 to 1000."],
  ])("rejects %s with 400 INVALID_QUERY", async (_label, options, message) => {
    const error = await expectStoreError(query("Todo", options), "INVALID_QUERY");
    expect(error).toMatchObject({ status: 400, message });
  });

  it("accepts limit 1000", async () => {
    expect((await query("Todo", { limit: 1000 })).rows).toEqual([]);
  });

  it("rejects a cursor used with another order, and a forged one, with 400 INVALID_CURSOR", async () => {
    await seedPoints();
    const byPoints = { orderBy: { field: "points", direction: "asc" } } as const;
    const { nextCursor } = await query("Todo", { ...byPoints, limit: 2 });
    const cursor = nextCursor ?? "";
    const cases: [QueryOptions, string][] = [
      [{ orderBy: { field: "points", direction: "desc" }, cursor }, "different sort order"],
      [{ orderBy: { field: "title" }, cursor }, "different sort order"],
      [{ cursor }, "different sort order"],
      [{ ...byPoints, cursor: "not a cursor!" }, "not one this API returned"],
      [{ ...byPoints, cursor: cursor.slice(1) }, "not one this API returned"],
      [
        {
          ...byPoints,
          cursor: Buffer.from('{"o":"points:asc","v":"3","i":"x"}').toString("base64url"),
        },
        "not one this API returned",
      ],
    ];
    for (const [options, message] of cases) {
      const error = await expectStoreError(query("Todo", options), "INVALID_CURSOR");
      expect(error.status).toBe(400);
      expect(error.message).toContain(message);
    }
  });

  // Regression (issue 21, finding 9): cursors were unsigned base64 JSON, so
  // a cursor written or edited by the caller was accepted.
  it("refuses a forged, edited or truncated cursor, and one of another entity, with 400 INVALID_CURSOR", async () => {
    await seedPoints();
    const byPoints = { orderBy: { field: "points", direction: "asc" } } as const;
    const { nextCursor } = await query("Todo", { ...byPoints, limit: 2 });
    const cursor = nextCursor ?? "";
    const [payload = "", mac = ""] = cursor.split(".");
    const flip = (text: string, at: number): string =>
      `${text.slice(0, at)}${text[at] === "A" ? "B" : "A"}${text.slice(at + 1)}`;
    const position = JSON.parse(Buffer.from(payload, "base64url").toString("utf8"));
    const editedPayload = Buffer.from(JSON.stringify({ ...position, v: 1 })).toString("base64url");
    const forged = Buffer.from(JSON.stringify({ o: "points:asc", v: 1, i: idOf(8) })).toString(
      "base64url",
    );
    await fixture().store.transaction(adminAuth, async (db) => {
      await db.insert("List", { id: idOf(1), title: "a" });
      await db.insert("List", { id: idOf(2), title: "b" });
    });
    const { nextCursor: listCursor } = await fixture()
      .store.reader(adminAuth)
      .query("List", { limit: 1 });
    const cases: [string, QueryOptions][] = [
      ["forged (unsigned, as cursors used to be)", { ...byPoints, cursor: forged }],
      ["with an edited value", { ...byPoints, cursor: `${editedPayload}.${mac}` }],
      [
        "with an edited signature",
        { ...byPoints, cursor: `${payload}.${flip(mac, mac.length - 1)}` },
      ],
      ["truncated", { ...byPoints, cursor: cursor.slice(0, -1) }],
      ["of another entity", { cursor: listCursor ?? "" }],
    ];
    for (const [label, options] of cases) {
      const error = await expectStoreError(query("Todo", options), "INVALID_CURSOR");
      expect({ label, status: error.status }).toEqual({ label, status: 400 });
      const json = await expectStoreError(
        fixture().store.queryJSON(adminAuth, "Todo", options),
        "INVALID_CURSOR",
      );
      expect(json.status).toBe(400);
    }
    // The untouched cursor still reads the next page.
    expect((await query("Todo", { ...byPoints, cursor })).rows.length).toBeGreaterThan(0);
  });

  it("accepts a cursor on every store with the same cursorSecret, and only there", async () => {
    await seedPoints();
    const secret = "shared-secret-of-the-deployment";
    const first = fixture().reopen({ cursorSecret: secret });
    const second = fixture().reopen({ cursorSecret: secret });
    const other = fixture().reopen({ cursorSecret: "another-secret-entirely" });
    const { nextCursor } = await first.reader(adminAuth).query("Todo", { limit: 3 });
    const cursor = nextCursor ?? "";
    const next = await second.reader(adminAuth).query("Todo", { limit: 3, cursor });
    expect(next.rows.map((row) => row.id)).toEqual([idOf(4), idOf(5), idOf(6)]);
    await expectStoreError(
      other.reader(adminAuth).query("Todo", { limit: 3, cursor }),
      "INVALID_CURSOR",
    );
  });
});
