import type { Manifest } from "@svc/schema";
import { type Expression, type Kysely, type RawBuilder, type SqlBool, sql } from "kysely";
import { compileAccessFilter, compileReadFilter, type ReadFilter } from "../compile-read-filter.js";
import type { CompiledPolicies, PolicyAuth, PolicyRow } from "../condition.js";
import type { AnyTables } from "../explain.js";
import {
  type PolicyDialectName,
  type PolicySqlDialect,
  policySqlDialect,
} from "../sql-dialects.js";
import type { PolicyTables } from "../table-lookup.js";

/**
 * A database the access checks also run on: a kysely instance (SQLite or
 * Postgres) the caller opened. Nothing is left behind: every run happens
 * in one transaction that is rolled back (on Postgres in a fresh schema
 * selected with `set local search_path`), so any database will do, even
 * the application's own.
 */
export interface AccessTestDatabase {
  /** Shown in reports, e.g. `sqlite`, `postgres`. */
  readonly name: string;
  readonly dialect: PolicyDialectName;
  /** Any table layout: the tables are made at run time from the manifest. */
  readonly db: Kysely<AnyTables>;
}

/** One write to check in SQL: its key, the row to write (insert, update) and the stored row's id (update, delete). */
export interface WriteCandidate {
  readonly key: string;
  readonly data?: PolicyRow;
  readonly existingId?: string;
}

/** The scratch tables of one run: the manifest's entities, laid out as the store lays them out. */
export interface ScratchTables {
  readonly database: AccessTestDatabase;
  /** The transaction the tables live in (rolled back at the end): for seeding and timing queries. */
  readonly db: Kysely<AnyTables>;
  /** Replaces every stored row with `tables` (entity name to rows, in API form, every field present). */
  load(tables: PolicyTables): Promise<void>;
  /** The ids of `entity`'s stored rows the read filter lets the caller see. */
  readable(entity: string, auth: PolicyAuth): Promise<Set<string>>;
  /**
   * The keys of the candidates the compiled SQL of `action`'s rules allows
   * (for update and delete, also only where the read filter shows the
   * stored row, as the store requires).
   */
  writable(
    entity: string,
    action: "insert" | "update" | "delete",
    auth: PolicyAuth,
    candidates: readonly WriteCandidate[],
  ): Promise<Set<string>>;
}

/** The table holding the rows a write would store (never seen by `exists`). */
export const newRowsTable = (entity: string): string => `_svc_new_${entity}`;

const BATCH = 100;

class Rollback extends Error {
  constructor(readonly result: unknown) {
    super("rollback");
  }
}

function quoteId(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

type Db = AccessTestDatabase["db"];

function applyFilter(filter: ReadFilter, where: (filter: Expression<SqlBool>) => void): boolean {
  if (filter === "none") return false;
  if (filter !== "all") where(filter);
  return true;
}

/**
 * Creates the manifest's tables in a transaction on `database`, runs `fn`
 * with them and rolls everything back, whatever `fn` does.
 *
 * @example
 * const ids = await withScratchTables(database, compiled, async (scratch) => {
 *   await scratch.load({ Todo: [row] });
 *   return scratch.readable("Todo", auth);
 * });
 */
export async function withScratchTables<T>(
  database: AccessTestDatabase,
  compiled: CompiledPolicies,
  fn: (scratch: ScratchTables) => Promise<T>,
): Promise<T> {
  const dialect = policySqlDialect(database.dialect);
  try {
    await database.db.transaction().execute(async (trx) => {
      await dialect.enterScratchSchema(trx);
      await createTables(trx, dialect, compiled.manifest);
      throw new Rollback(await fn(scratchTables(trx, database, dialect, compiled)));
    });
  } catch (error) {
    if (error instanceof Rollback) return error.result as T;
    throw error;
  }
  throw new Error("unreachable: the scratch transaction always rolls back");
}

// The store's layout (see @svc/store's migrations): what compileReadFilter assumes.
async function createTables(db: Db, dialect: PolicySqlDialect, manifest: Manifest) {
  const types = dialect.columnTypes;
  const text = types.string;
  for (const entity of manifest.entities) {
    const columns = entity.fields.map((field) => `${quoteId(field.name)} ${types[field.type]}`);
    await sql
      .raw(`create table ${quoteId(entity.name)} ("id" ${text} primary key, ${columns.join(", ")})`)
      .execute(db);
    await sql
      .raw(
        `create table ${quoteId(newRowsTable(entity.name))} ("_k" ${text} primary key, "_e" ${text}, "id" ${text}, ${columns.join(", ")})`,
      )
      .execute(db);
  }
}

function encoder(dialect: PolicySqlDialect, manifest: Manifest) {
  return (entity: string, row: PolicyRow): Record<string, unknown> => {
    const def = manifest.entities.find((candidate) => candidate.name === entity);
    const out: Record<string, unknown> = { id: row.id ?? null };
    for (const field of def?.fields ?? []) {
      const value = row[field.name] ?? null;
      if (value === null) out[field.name] = null;
      else if (field.type === "bool") out[field.name] = dialect.encodeBool(value === true);
      else if (field.type === "json") out[field.name] = JSON.stringify(value);
      else out[field.name] = value;
    }
    return out;
  };
}

async function insertBatched(db: Db, table: string, rows: readonly Record<string, unknown>[]) {
  for (let start = 0; start < rows.length; start += BATCH) {
    await db
      .insertInto(table)
      .values(rows.slice(start, start + BATCH))
      .execute();
  }
}

function scratchTables(
  db: Db,
  database: AccessTestDatabase,
  dialect: PolicySqlDialect,
  compiled: CompiledPolicies,
): ScratchTables {
  const encode = encoder(dialect, compiled.manifest);
  const entities = compiled.manifest.entities.map((entity) => entity.name);
  const column = (table: string, name: string): RawBuilder<unknown> => sql.id(table, name);
  return {
    database,
    db,
    async load(tables) {
      for (const entity of entities) {
        await db.deleteFrom(entity).execute();
        const rows = tables[entity] ?? [];
        await insertBatched(
          db,
          entity,
          rows.map((row) => encode(entity, row)),
        );
      }
    },
    async readable(entity, auth) {
      let query = db.selectFrom(entity).select("id");
      const any = applyFilter(compileReadFilter(compiled, entity, auth), (filter) => {
        query = query.where(filter);
      });
      if (!any) return new Set();
      const rows = await query.execute();
      return new Set(rows.map((row: { id: unknown }) => String(row.id)));
    },
    async writable(entity, action, auth, candidates) {
      if (candidates.length === 0) return new Set();
      const staged = newRowsTable(entity);
      if (action !== "delete") {
        await insertBatched(
          db,
          staged,
          candidates.map((candidate) => ({
            ...encode(entity, candidate.data ?? {}),
            _k: candidate.key,
            _e: candidate.existingId ?? null,
          })),
        );
      }
      try {
        const rows = action === "insert" ? { data: staged } : { data: staged, existing: entity };
        const write = compileAccessFilter(compiled, entity, action, auth, rows);
        // Update and delete reach only rows the caller can read; the stored row is `entity`.
        const read =
          action === "insert"
            ? "all"
            : compileAccessFilter(compiled, entity, "read", auth, { data: entity });
        if (write === "none" || read === "none") return new Set();
        let query =
          action === "insert"
            ? db.selectFrom(staged).select(column(staged, "_k").as("k"))
            : action === "update"
              ? db
                  .selectFrom(staged)
                  .innerJoin(entity, `${entity}.id`, `${staged}._e`)
                  .select(column(staged, "_k").as("k"))
              : db.selectFrom(entity).select(column(entity, "id").as("k"));
        if (write !== "all") query = query.where(write);
        if (read !== "all") query = query.where(read);
        const rowsFound = await query.execute();
        const found = new Set(rowsFound.map((row: { k: unknown }) => String(row.k)));
        if (action !== "delete") return found;
        // Delete candidates are keyed by their own key; map stored ids back.
        return new Set(
          candidates
            .filter((candidate) => found.has(candidate.existingId ?? candidate.key))
            .map((candidate) => candidate.key),
        );
      } finally {
        if (action !== "delete") await db.deleteFrom(staged).execute();
      }
    },
  };
}
