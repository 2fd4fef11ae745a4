import type { TestDatabaseTarget } from "@svc/tooling/databases";
import { type Kysely, sql } from "kysely";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openPostgres } from "../src/pg.js";
import { MAX_NAMED_STATEMENTS } from "../src/pg-named-statements.js";
import { databases } from "./fixture.js";

// On Postgres the store's pools run repeated writes as named prepared
// statements: Postgres parses and plans them once per connection. One
// connection per pool here, so `pg_prepared_statements` (which lists the
// current session's) shows what the pool prepared.

const postgres = databases.find((database) => database.name === "postgres");

describe.skipIf(postgres === undefined)("named write statements on Postgres", () => {
  let target: Extract<TestDatabaseTarget, { dialect: "postgres" }>;
  let opened: ReturnType<typeof openPostgres>;
  let db: Kysely<Record<string, Record<string, unknown>>>;

  beforeEach(async () => {
    target = (await postgres?.create()) as typeof target;
    opened = openPostgres(target.url, { max: 1, readMax: 0 });
    db = opened.db as unknown as typeof db;
    await sql`create table notes (id integer primary key, body text)`.execute(db);
  });

  afterEach(async () => {
    await opened.close();
    if (target !== undefined) await postgres?.destroy(target);
  });

  const prepared = async (): Promise<{ name: string; statement: string }[]> =>
    (
      await sql<{ name: string; statement: string }>`
        select name, statement from pg_prepared_statements order by name`.execute(db)
    ).rows;

  it("prepares a repeated insert, update and delete once and leaves reads unprepared", async () => {
    for (let id = 1; id <= 3; id += 1) {
      await db
        .insertInto("notes")
        .values({ id, body: `note ${id}` })
        .execute();
      await db.updateTable("notes").set({ body: "edited" }).where("id", "=", id).execute();
    }
    await db.deleteFrom("notes").where("id", "=", 1).execute();
    await db.deleteFrom("notes").where("id", "=", 2).execute();
    const rows = await db.selectFrom("notes").selectAll().where("id", "=", 3).execute();
    expect(rows).toEqual([{ id: 3, body: "edited" }]);
    const statements = await prepared();
    expect(statements.map((row) => row.statement.split(" ")[0])).toEqual([
      "insert",
      "update",
      "delete",
    ]);
    expect(statements.map((row) => row.name)).toEqual(["svc_w0", "svc_w1", "svc_w2"]);
  });

  it("keeps working after a migration adds a column", async () => {
    await db.insertInto("notes").values({ id: 1, body: "a" }).execute();
    await sql`alter table notes add column tag text default 'none'`.execute(db);
    await db.insertInto("notes").values({ id: 2, body: "b" }).execute();
    const rows = await db.selectFrom("notes").selectAll().orderBy("id").execute();
    expect(rows).toEqual([
      { id: 1, body: "a", tag: "none" },
      { id: 2, body: "b", tag: "none" },
    ]);
  });

  it("prepares a statement afresh when a column it returns changed type", async () => {
    const insert = (id: number) =>
      sql<{
        body: unknown;
      }>`insert into notes (id, body) values (${id}, ${"7"}) returning body`.execute(db);
    expect((await insert(1)).rows).toEqual([{ body: "7" }]);
    await sql`alter table notes alter column body type integer using body::integer`.execute(db);
    // The first execution after the change fails (its parameter's type was
    // fixed as text when it was prepared); the next is prepared afresh.
    await expect(insert(2)).rejects.toMatchObject({ code: "42804" });
    expect((await insert(3)).rows).toEqual([{ body: 7 }]);
  });

  it(`names at most ${MAX_NAMED_STATEMENTS} statements; later ones run unnamed`, async () => {
    for (let id = 0; id < MAX_NAMED_STATEMENTS + 20; id += 1) {
      // A distinct text each time: another column alias.
      await sql`insert into notes (id, body) values (${id}, ${"x"}) returning id as ${sql.ref(`n${id}`)}`.execute(
        db,
      );
    }
    expect(await prepared()).toHaveLength(MAX_NAMED_STATEMENTS);
    const count = await sql<{ count: number }>`select count(*)::int as count from notes`.execute(
      db,
    );
    expect(count.rows[0]?.count).toBe(MAX_NAMED_STATEMENTS + 20);
  });
});
