import { matchTarget, openTestDatabase, type TestDatabaseTarget } from "@svc/tooling/databases";
import { type Kysely, sql } from "kysely";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  type Dialect,
  dialectFor,
  type EntityTables,
  isStoreDialect,
  postgresDialect,
  STORE_DIALECTS,
  type StoreDatabase,
  sqliteDialect,
} from "../src/index.js";
import { openPostgres } from "../src/pg.js";
import { openSqlite } from "../src/sqlite.js";
import { databases } from "./fixture.js";

/** SQLite attaches a second in-memory database as `pkg`, where a package's tables may live. */
function open(target: TestDatabaseTarget): StoreDatabase {
  return openTestDatabase(
    target,
    { openSqlite, openPostgres },
    { attach: { pkg: ":memory:" }, max: 4 },
  );
}

describe("dialectFor", () => {
  it.each([
    ["sqlite", sqliteDialect],
    ["postgres", postgresDialect],
  ] as const)("%s names its dialect object", (name, dialect) => {
    expect(dialectFor(name)).toBe(dialect);
    expect(dialectFor(dialect)).toBe(dialect);
    expect(dialect.name).toBe(name);
  });

  it("rejects a name it does not know", () => {
    expect(() => dialectFor("mysql" as "sqlite")).toThrow(/Unknown dialect: mysql/);
  });

  it("tells dialect names from other values", () => {
    expect(STORE_DIALECTS.every(isStoreDialect)).toBe(true);
    expect(isStoreDialect("mysql")).toBe(false);
    expect(isStoreDialect(undefined)).toBe(false);
    expect(isStoreDialect("toString")).toBe(false);
  });

  it("locks rows only where writers run concurrently", () => {
    const cold = openSqlite(":memory:").db;
    const query = cold.selectFrom("t").select("id");
    expect(sqliteDialect.lockForUpdate(query).compile().sql).not.toMatch(/for update/i);
    expect(postgresDialect.lockForUpdate(query).compile().sql).toMatch(/for update$/i);
  });
});

describe.each(databases)("the dialect object on $name", (database) => {
  let target: TestDatabaseTarget;
  let opened: StoreDatabase;
  let db: Kysely<EntityTables>;
  let dialect: Dialect;
  // On SQLite the package's tables go to the attached database; on Postgres to the search path.
  const schema = "pkg";

  beforeEach(async () => {
    target = await database.create();
    opened = open(target);
    db = opened.db;
    dialect = dialectFor(opened.dialect);
  });

  afterEach(async () => {
    await opened.close();
    await database.destroy(target);
  });

  async function createCounters(): Promise<void> {
    await dialect
      .withAttachedSchema(db, schema)
      .schema.createTable("counters")
      .addColumn("seq", dialect.serialKeyType, (col) => col.primaryKey())
      .addColumn("key", "text", (col) => col.notNull().unique())
      .addColumn("hits", "integer", (col) => col.notNull())
      .addColumn("flag", dialect.booleansAsIntegers ? "integer" : "boolean")
      .execute();
  }

  it("puts package tables in the attached database on SQLite only", async () => {
    expect(dialect.attachedSchema(schema)).toBe(
      matchTarget(target, { sqlite: () => schema, postgres: () => undefined }),
    );
    expect(dialect.attachedSchema(undefined)).toBeUndefined();
    await createCounters();
    await sql`insert into ${dialect.table("counters", schema)} (key, hits) values ('a', 1)`.execute(
      db,
    );
    const rows = await dialect
      .withAttachedSchema(db, schema)
      .selectFrom("counters")
      .select("key")
      .execute();
    expect(rows).toEqual([{ key: "a" }]);
    await matchTarget(target, {
      // Not in the main database: the table was made in `pkg`.
      sqlite: () =>
        expect(sql`select * from main.counters`.execute(db)).rejects.toThrow(/no such table/),
      postgres: async () => undefined,
    });
  });

  it("upserts with the existing row's column", async () => {
    await createCounters();
    const hit = () =>
      sql`insert into ${dialect.table("counters", schema)} (key, hits) values ('a', 1)
      on conflict (key) do update set hits = ${dialect.existingColumn("counters", "hits")} + 1`.execute(
        db,
      );
    await hit();
    await hit();
    await hit();
    const row = await sql<{ hits: number }>`select hits from ${dialect.table("counters", schema)}`
      .execute(db)
      .then((result) => result.rows[0]);
    expect(Number(row?.hits)).toBe(3);
  });

  it("stores booleans in its own encoding and numbers serial keys", async () => {
    await createCounters();
    const tables = dialect.withAttachedSchema(db, schema);
    await tables
      .insertInto("counters")
      .values({ key: "t", hits: 0, flag: dialect.encodeBool(true) })
      .execute();
    await tables
      .insertInto("counters")
      .values({ key: "f", hits: 0, flag: dialect.encodeBool(false) })
      .execute();
    const rows = await tables
      .selectFrom("counters")
      .select(["seq", "key", "flag"])
      .orderBy("seq")
      .execute();
    expect(rows.map((row) => [Number(row.seq), row.key, Boolean(row.flag)])).toEqual([
      [1, "t", true],
      [2, "f", false],
    ]);
    // Emptied, the table hands out 1 again on SQLite, never on Postgres.
    await tables.deleteFrom("counters").execute();
    await tables.insertInto("counters").values({ key: "n", hits: 0 }).execute();
    const next = await tables.selectFrom("counters").select("seq").executeTakeFirstOrThrow();
    expect(Number(next.seq) === 1).toBe(dialect.serialKeyRestarts);
  });

  it("holds a locked row against another writer where writers run concurrently", async () => {
    await createCounters();
    const tables = dialect.withAttachedSchema(db, schema);
    await tables.insertInto("counters").values({ key: "a", hits: 0 }).execute();
    const second = matchTarget(target, {
      sqlite: () => null,
      postgres: ({ url }) => openPostgres(url, { max: 1 }),
    });
    try {
      await db.transaction().execute(async (trx) => {
        const locked = await dialect
          .lockForUpdate(
            dialect.withAttachedSchema(trx, schema).selectFrom("counters").select("hits"),
          )
          .executeTakeFirst();
        expect(locked).toEqual({ hits: 0 });
        if (second === null) return;
        // Another connection cannot take the same row while this transaction holds it.
        await expect(
          sql`select hits from counters for update nowait`.execute(second.db),
        ).rejects.toThrow(/could not obtain lock/);
      });
      expect(dialect.concurrentWriters).toBe(second !== null);
    } finally {
      await second?.close();
    }
  });

  it("aborts a transaction on a failed statement only where it says so", async () => {
    await createCounters();
    const attempt = db.transaction().execute(async (trx) => {
      const tables = dialect.withAttachedSchema(trx, schema);
      await tables.insertInto("counters").values({ key: "a", hits: 0 }).execute();
      await tables
        .insertInto("counters")
        .values({ key: "a", hits: 0 })
        .execute()
        .catch(() => undefined);
      await tables.insertInto("counters").values({ key: "b", hits: 0 }).execute();
    });
    if (dialect.statementErrorAbortsTransaction) {
      await expect(attempt).rejects.toThrow(/current transaction is aborted/);
    } else {
      await attempt;
    }
  });
});
