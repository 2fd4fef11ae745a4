import { testDatabases } from "@svc/tooling/databases";
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
    const tableCount = async (): Promise<number> =>
      (await db.introspection.getTables()).filter((table) => table.name === "scratch").length;
    await db
      .transaction()
      .execute(async (trx) => {
        await policySqlDialect(dialect).enterScratchSchema(trx);
        await sql`create table scratch (id text)`.execute(trx);
        await sql`insert into scratch values ('x')`.execute(trx);
        expect((await sql`select id from scratch`.execute(trx)).rows).toEqual([{ id: "x" }]);
        throw new Error("roll back");
      })
      .catch((error: unknown) => {
        if (!(error instanceof Error) || error.message !== "roll back") throw error;
      });
    expect(await tableCount()).toBe(0);
  });
});
