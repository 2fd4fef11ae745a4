import type { FieldKind } from "@svc/schema";
import { openTestDatabase, type TestDatabaseTarget } from "@svc/tooling/databases";
import Database from "better-sqlite3";
import { Kysely, PostgresDialect, SqliteDialect, sql } from "kysely";
import pg from "pg";
import type { PolicyRow } from "../src/index.js";
import { policySqlDialect } from "../src/sql-dialects.js";
import type { Dataset } from "./policy-arbitraries.js";

export type Tables = Record<string, Record<string, unknown>>;

type Kind = Extract<FieldKind, "string" | "bool" | "int" | "float" | "datetime" | "json">;

const COLUMNS: Readonly<Record<keyof Dataset, Readonly<Record<string, Kind>>>> = {
  List: { title: "string", ownerId: "string", tenantId: "string", archived: "bool" },
  Todo: {
    title: "string",
    done: "bool",
    ownerId: "string",
    listId: "string",
    priority: "string",
    createdAt: "datetime",
    dueAt: "datetime",
    rank: "int",
    score: "float",
    note: "string",
    flag: "bool",
    meta: "json",
  },
  Member: { userId: "string", listId: "string", role: "string" },
};
const NULLABLE = new Set(["tenantId", "listId", "dueAt", "rank", "score", "note", "flag", "meta"]);

function openSqlite(path: string): Database.Database {
  const database = new Database(path);
  // Throwaway data: skip the fsyncs that would dominate a few hundred reloads.
  database.pragma("journal_mode = MEMORY");
  database.pragma("synchronous = OFF");
  return database;
}

/** A database holding the fixture tables, loaded with one dataset at a time. */
export interface SqlFixture {
  readonly db: Kysely<Tables>;
  load(data: Dataset): Promise<void>;
  close(): Promise<void>;
}

/**
 * Opens the target through kysely and creates the fixture tables the way
 * the store would (the column types the engine's access checks use too:
 * SQLite keeps bools as 0/1 and date-times as ISO text; Postgres uses
 * boolean, timestamptz, jsonb, bigint, double precision and text COLLATE "C").
 */
export async function openFixture(target: TestDatabaseTarget): Promise<SqlFixture> {
  const dialect = policySqlDialect(target.dialect);
  const db = new Kysely<Tables>({
    dialect: openTestDatabase(
      target,
      {
        openSqlite: (path) => new SqliteDialect({ database: openSqlite(path) }),
        openPostgres: (url, { max }) =>
          new PostgresDialect({ pool: new pg.Pool({ connectionString: url, max }) }),
      },
      { max: 2 },
    ),
  });
  const types = dialect.columnTypes;
  for (const [table, columns] of Object.entries(COLUMNS)) {
    const defs = Object.entries(columns).map(
      ([name, kind]) => `"${name}" ${types[kind]}${NULLABLE.has(name) ? "" : " not null"}`,
    );
    const id = types.id;
    await sql
      .raw(`create table "${table}" ("id" ${id} primary key, ${defs.join(", ")})`)
      .execute(db);
  }
  const encode = (table: keyof Dataset, row: PolicyRow): Record<string, unknown> => {
    const out: Record<string, unknown> = { id: row.id };
    for (const [name, kind] of Object.entries(COLUMNS[table])) {
      const value = row[name] ?? null;
      if (value === null) out[name] = null;
      else if (kind === "bool") out[name] = dialect.encodeBool(value === true);
      else if (kind === "json") out[name] = JSON.stringify(value);
      else out[name] = value;
    }
    return out;
  };
  return {
    db,
    async load(data) {
      for (const table of ["Todo", "Member", "List"] as const) {
        await db.deleteFrom(table).execute();
        const rows = data[table];
        if (rows.length > 0) {
          await db
            .insertInto(table)
            .values(rows.map((row) => encode(table, row)))
            .execute();
        }
      }
    },
    close: () => db.destroy(),
  };
}
