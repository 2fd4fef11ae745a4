import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { createAuth } from "@svc/auth-core";
import type { Manifest } from "@svc/schema";
import { createStore, type EntityTables, sqliteDialect } from "@svc/store";
import Database from "better-sqlite3";
import { type CompiledQuery, Kysely, SqliteDialect } from "kysely";
import { EDGE_TABLES_SQL } from "../d1/d1-dialect.js";

/** D1 is SQLite: the store and auth-core speak its dialect. */
const D1_DIALECT = sqliteDialect.name;

const WRITES = /^\s*(create|alter|drop|insert|update|delete)\b/i;
const IDEMPOTENT = /^\s*create (table|index|unique index) if not exists\b/i;

/** An SQL literal of a bound value, for a migration file. */
function literal(value: unknown): string {
  if (value === null || value === undefined) return "null";
  if (typeof value === "number" || typeof value === "bigint") return String(value);
  if (typeof value === "boolean") return value ? "1" : "0";
  if (value instanceof Uint8Array) return `x'${Buffer.from(value).toString("hex")}'`;
  return `'${String(value).replaceAll("'", "''")}'`;
}

function inline(query: CompiledQuery): string {
  let index = 0;
  return query.sql.replace(/\?/g, () => literal(query.parameters[index++]));
}

/** Splits a migration file into its statements (one per `;`-terminated line group). */
export function splitStatements(text: string): string[] {
  return text
    .split(/;\s*\n/)
    .map((statement) =>
      statement
        .replace(/^(\s*--[^\n]*\n)+/, "")
        .trim()
        .replace(/;$/, ""),
    )
    .filter((statement) => statement !== "" && !statement.startsWith("--"));
}

/** The migration files of `dir`, in order (`0001_svc.sql`, ...). */
export async function listMigrations(dir: string): Promise<string[]> {
  let entries: string[];
  try {
    entries = await readdir(dir);
  } catch {
    return [];
  }
  return entries.filter((entry) => /^\d{4}_.+\.sql$/.test(entry)).sort();
}

/**
 * The SQL that brings a D1 database from what `dir`'s migrations make to
 * what `manifest` needs: the store's own migration planner (entities,
 * indexes, auth-core's tables) run against an in-memory SQLite database
 * that replayed the earlier migrations, its writes captured. Empty when
 * nothing changed. The first migration also creates the edge's tables.
 */
export async function planMigration(manifest: Manifest, dir: string): Promise<string[]> {
  const previous = await listMigrations(dir);
  const sqlite = new Database(":memory:");
  try {
    for (const file of previous) {
      for (const statement of splitStatements(await readFile(join(dir, file), "utf8"))) {
        sqlite.exec(statement);
      }
    }
    const captured: string[] = previous.length === 0 ? [...EDGE_TABLES_SQL] : [];
    const db = new Kysely<EntityTables>({
      dialect: new SqliteDialect({ database: sqlite }),
      log(event) {
        if (event.level === "query" && WRITES.test(event.query.sql)) {
          captured.push(inline(event.query));
        }
      },
    });
    const store = createStore({ db, dialect: D1_DIALECT, manifest, groupCommit: false });
    const auth = createAuth({
      store,
      database: { db, dialect: D1_DIALECT },
      secret: "svc edge build: migrations only, never a real secret",
    });
    await store.migrate({ packages: auth.migrations });
    await auth.close();
    // The planner re-asserts its bookkeeping tables every run ("if not exists"): not a change.
    const changed = captured.some((statement) => !IDEMPOTENT.test(statement));
    return changed || previous.length === 0 ? captured : [];
  } finally {
    sqlite.close();
  }
}
