import { type Generated, Kysely, sql } from "kysely";
import { Miniflare } from "miniflare";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createD1Dialect, EDGE_TABLES_SQL } from "./d1-dialect.js";
import { isWriteConflict } from "./d1-errors.js";
import type { D1Database } from "./d1-types.js";

interface Tables {
  item: { id: string; name: string; n: Generated<number>; tag: string | null };
  pair: { a: string; b: string; v: number };
}

let mf: Miniflare;
let d1: D1Database;
let db: Kysely<Tables>;

beforeAll(async () => {
  mf = new Miniflare({
    modules: true,
    script: "export default { fetch() { return new Response('') } }",
    d1Databases: ["DB"],
  });
  d1 = (await mf.getD1Database("DB")) as unknown as D1Database;
  for (const statement of [
    ...EDGE_TABLES_SQL,
    "create table item (id text primary key, name text not null, n integer not null default 7, tag text) strict, without rowid",
    "create unique index item_tag on item (tag)",
    "create table pair (a text not null, b text not null, v integer not null, primary key (a, b))",
  ]) {
    await d1.prepare(statement).all();
  }
  db = new Kysely<Tables>({ dialect: createD1Dialect(d1) });
});

afterAll(async () => {
  await mf.dispose();
});

describe("transactions on D1", () => {
  it("see their own writes, return what they wrote and commit all at once", async () => {
    const result = await db.transaction().execute(async (trx) => {
      const inserted = await trx
        .insertInto("item")
        .values({ id: "a", name: "first", tag: "x" })
        .returningAll()
        .executeTakeFirstOrThrow();
      expect(inserted).toEqual({ id: "a", name: "first", n: 7, tag: "x" });
      await trx
        .updateTable("item")
        .set((eb) => ({ n: eb("n", "+", 1) }))
        .where("id", "=", "a")
        .execute();
      const seen = await trx.selectFrom("item").selectAll().execute();
      // Outside the transaction nothing is visible yet.
      expect(await db.selectFrom("item").selectAll().execute()).toEqual([]);
      return seen;
    });
    expect(result).toEqual([{ id: "a", name: "first", n: 8, tag: "x" }]);
    expect(await db.selectFrom("item").selectAll().execute()).toEqual([
      { id: "a", name: "first", n: 8, tag: "x" },
    ]);
  });

  it("write nothing when the work throws", async () => {
    await expect(
      db.transaction().execute(async (trx) => {
        await trx.insertInto("item").values({ id: "b", name: "second", n: 1, tag: null }).execute();
        await trx.deleteFrom("item").where("id", "=", "a").execute();
        expect(await trx.selectFrom("item").select("id").execute()).toEqual([{ id: "b" }]);
        throw new Error("stop");
      }),
    ).rejects.toThrow("stop");
    expect(await db.selectFrom("item").select("id").execute()).toEqual([{ id: "a" }]);
  });

  it("refuse a unique or primary key violation at the statement, as SQLite does", async () => {
    await db.transaction().execute(async (trx) => {
      await expect(
        trx.insertInto("item").values({ id: "c", name: "c", n: 1, tag: "x" }).execute(),
      ).rejects.toMatchObject({
        code: "SQLITE_CONSTRAINT_UNIQUE",
        message: "UNIQUE constraint failed: item.tag",
      });
      await expect(
        trx.insertInto("item").values({ id: "a", name: "c", n: 1, tag: null }).execute(),
      ).rejects.toMatchObject({ code: "SQLITE_CONSTRAINT_PRIMARYKEY" });
      await trx
        .insertInto("pair")
        .values([
          { a: "1", b: "2", v: 1 },
          { a: "1", b: "3", v: 2 },
        ])
        .execute();
      await trx.updateTable("pair").set({ v: 5 }).where("b", "=", "3").execute();
      expect(await trx.selectFrom("pair").select(["a", "b", "v"]).orderBy("b").execute()).toEqual([
        { a: "1", b: "2", v: 1 },
        { a: "1", b: "3", v: 5 },
      ]);
    });
    expect(await db.selectFrom("pair").select("v").orderBy("b").execute()).toEqual([
      { v: 1 },
      { v: 5 },
    ]);
  });

  it("fail with a write conflict when another write landed after the transaction read", async () => {
    const attempt = db.transaction().execute(async (trx) => {
      const row = await trx
        .selectFrom("item")
        .select("n")
        .where("id", "=", "a")
        .executeTakeFirstOrThrow();
      await db.updateTable("item").set({ n: 100 }).where("id", "=", "a").execute();
      await trx
        .updateTable("item")
        .set({ n: row.n + 1 })
        .where("id", "=", "a")
        .execute();
    });
    const error = await attempt.then(
      () => null,
      (thrown: unknown) => thrown,
    );
    expect(isWriteConflict(error)).toBe(true);
    expect(
      await db.selectFrom("item").select("n").where("id", "=", "a").executeTakeFirst(),
    ).toEqual({ n: 100 });
  });

  it("reads with their own with clause keep working through the overlay", async () => {
    await db.transaction().execute(async (trx) => {
      await trx.insertInto("item").values({ id: "w", name: "w", n: 3, tag: null }).execute();
      const rows = await trx
        .with("small", (qb) => qb.selectFrom("item").select(["id", "n"]).where("n", "<", 10))
        .selectFrom("small")
        .select("id")
        .orderBy("id")
        .execute();
      expect(rows).toEqual([{ id: "w" }]);
      const count = await sql<{ c: number }>`select count(*) as c from item`.execute(trx);
      expect(count.rows[0]?.c).toBe(2);
    });
  });

  it("refuse by name a write the overlay cannot compute, and write nothing", async () => {
    await expect(
      db.transaction().execute(async (trx) => {
        await trx
          .insertInto("pair")
          .values({ a: "9", b: "9", v: 1 })
          .onConflict((oc) => oc.columns(["a", "b"]).doNothing())
          .execute();
      }),
    ).rejects.toThrow(/on conflict/);
    expect(await db.selectFrom("pair").select("a").where("a", "=", "9").execute()).toEqual([]);
  });
});
