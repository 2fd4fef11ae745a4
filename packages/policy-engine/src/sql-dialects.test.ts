import { matchTarget, testDatabases } from "@svc/tooling/databases";
import { Kysely, sql } from "kysely";
import { describe, expect, it } from "vitest";
import { useAccessDatabase } from "../test/use-access-database.js";
import { type PolicyDialectName, policySqlDialect } from "./sql-dialects.js";

describe("policySqlDialect", () => {
  it.each([
    ["sqlite", 'select * from "Todo" where "done" = ?', [1, 0]],
    ["postgres", 'select * from "Todo" where "done" = $1', [true, false]],
  ] as const)(
    "%s compiles without a driver and binds booleans as it stores them",
    (name, text, bools) => {
      const dialect = policySqlDialect(name);
      expect(dialect.name).toBe(name);
      const db = new Kysely<Record<string, Record<string, unknown>>>({
        dialect: dialect.compileOnly(),
      });
      const query = db
        .selectFrom("Todo")
        .selectAll()
        .where("done", "=", dialect.encodeBool(true))
        .compile();
      expect({ sql: query.sql, parameters: query.parameters }).toEqual({
        sql: text,
        parameters: [bools[0]],
      });
      expect([dialect.encodeBool(true), dialect.encodeBool(false)]).toEqual(bools);
    },
  );

  it("lays columns out as the store does", () => {
    expect(policySqlDialect("sqlite").columnTypes).toMatchObject({
      string: "text",
      bool: "integer",
      datetime: "text",
      json: "text",
    });
    expect(policySqlDialect("postgres").columnTypes).toMatchObject({
      string: 'text collate "C"',
      bool: "boolean",
      datetime: "timestamptz",
      json: "jsonb",
    });
  });

  it("rejects a name it does not know", () => {
    expect(() => policySqlDialect("mysql" as PolicyDialectName)).toThrow(/Unknown dialect: mysql/);
    expect(() => policySqlDialect("toString" as PolicyDialectName)).toThrow(/Unknown dialect/);
  });
});

describe.each(testDatabases())("enterScratchSchema on $name", (kind) => {
  const database = useAccessDatabase(kind);

  it("gives a transaction a place of its own for tables, gone with its rollback", async () => {
    const { db, dialect } = database();
    // A name no other test uses, looked up in the catalog by name alone:
    // kysely's introspection reads every schema, and another test file
    // dropping its own schema at that moment makes it fail.
    const table = `scratch_${crypto.randomUUID().slice(0, 8)}`;
    const catalogQuery = matchTarget(database.target(), {
      sqlite: () =>
        sql<{ n: number }>`select count(*) as n from sqlite_master where name = ${table}`,
      postgres: () =>
        sql<{
          n: number;
        }>`select count(*)::int as n from pg_catalog.pg_class where relname = ${table}`,
    });
    const tableCount = async (): Promise<number> =>
      Number((await catalogQuery.execute(db)).rows[0]?.n);
    await db
      .transaction()
      .execute(async (trx) => {
        await policySqlDialect(dialect).enterScratchSchema(trx);
        await sql`create table ${sql.id(table)} (id text)`.execute(trx);
        await sql`insert into ${sql.id(table)} values ('x')`.execute(trx);
        expect((await sql`select id from ${sql.id(table)}`.execute(trx)).rows).toEqual([
          { id: "x" },
        ]);
        expect(await catalogQuery.execute(trx)).toMatchObject({ rows: [{ n: 1 }] });
        throw new Error("roll back");
      })
      .catch((error: unknown) => {
        if (!(error instanceof Error) || error.message !== "roll back") throw error;
      });
    expect(await tableCount()).toBe(0);
  });
});
