import type { TestDatabaseTarget } from "@svc/tooling/databases";
import Database from "better-sqlite3";
import { Kysely, PostgresDialect, SqliteDialect, sql } from "kysely";
import pg from "pg";
import type { PolicyRow } from "../src/index.js";
import type { Dataset } from "./policy-arbitraries.js";

export type Tables = Record<string, Record<string, unknown>>;

type Kind = "text" | "bool" | "int" | "float" | "datetime" | "json";

const COLUMNS: Readonly<Record<keyof Dataset, Readonly<Record<string, Kind>>>> = {
  List: { title: "text", ownerId: "text", tenantId: "text", archived: "bool" },
  Todo: {
    title: "text",
    done: "bool",
    ownerId: "text",
    listId: "text",
    priority: "text",
    createdAt: "datetime",
    dueAt: "datetime",
    rank: "int",
    score: "float",
    note: "text",
    flag: "bool",
    meta: "json",
  },
  Member: { userId: "text", listId: "text", role: "text" },
};
const NULLABLE = new Set(["tenantId", "listId", "dueAt", "rank", "score", "note", "flag", "meta"]);

// The store's storage facts: SQLite keeps bools as 0/1 and date-times as ISO
// text; Postgres uses boolean, timestamptz, jsonb, bigint, double precision
// and text COLLATE "C".
const SQLITE_TYPE: Readonly<Record<Kind, string>> = {
  text: "text",
  bool: "integer",
  int: "integer",
  float: "real",
  datetime: "text",
  json: "text",
};
const POSTGRES_TYPE: Readonly<Record<Kind, string>> = {
  text: 'text collate "C"',
  bool: "boolean",
  int: "bigint",
  float: "double precision",
  datetime: "timestamptz",
  json: "jsonb",
};

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

/** Opens the target through kysely and creates the fixture tables the way the store would. */
export async function openFixture(target: TestDatabaseTarget): Promise<SqlFixture> {
  const postgres = target.dialect === "postgres";
  const db = new Kysely<Tables>({
    dialect:
      target.dialect === "postgres"
        ? new PostgresDialect({ pool: new pg.Pool({ connectionString: target.url, max: 2 }) })
        : new SqliteDialect({ database: openSqlite(target.path) }),
  });
  const types = postgres ? POSTGRES_TYPE : SQLITE_TYPE;
  for (const [table, columns] of Object.entries(COLUMNS)) {
    const defs = Object.entries(columns).map(
      ([name, kind]) => `"${name}" ${types[kind]}${NULLABLE.has(name) ? "" : " not null"}`,
    );
    const id = postgres ? 'text collate "C"' : "text";
    await sql
      .raw(`create table "${table}" ("id" ${id} primary key, ${defs.join(", ")})`)
      .execute(db);
  }
  const encode = (table: keyof Dataset, row: PolicyRow): Record<string, unknown> => {
    const out: Record<string, unknown> = { id: row.id };
    for (const [name, kind] of Object.entries(COLUMNS[table])) {
      const value = row[name] ?? null;
      if (value === null) out[name] = null;
      else if (kind === "bool" && !postgres) out[name] = value === true ? 1 : 0;
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
