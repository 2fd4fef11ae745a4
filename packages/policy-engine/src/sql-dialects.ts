import type { FieldKind } from "@svc/schema";
import {
  DummyDriver,
  type Kysely,
  type Dialect as KyselyDialect,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler,
  sql,
} from "kysely";

/** The dialects the engine compiles and checks SQL for, by the names its options take. */
export type PolicyDialectName = "sqlite" | "postgres";

/**
 * What the engine's SQL needs to know of a dialect, one object per dialect;
 * nothing else in the engine tells the dialects apart. `@svc/store` keeps
 * the full `Dialect` objects, but the store depends on this package, not
 * the other way round, so the engine keeps these few facts itself, agreeing
 * with the store's (same names, same boolean encoding); the store makes its
 * tables from `columnTypes`.
 */
export interface PolicySqlDialect {
  readonly name: PolicyDialectName;
  /**
   * The column type of each field kind, from which the store's migrations
   * create the tables: what the compiled filters assume (Postgres text is `COLLATE "C"`,
   * so it sorts bytewise like SQLite's).
   */
  readonly columnTypes: Readonly<Record<FieldKind, string>>;
  /** A kysely dialect that only compiles (no driver, no I/O): for showing a query's SQL. */
  compileOnly(): KyselyDialect;
  /** A boolean as a bound parameter: 0/1 on SQLite (an integer column), itself on Postgres. */
  encodeBool(value: boolean): boolean | number;
  /**
   * Makes the transaction `trx` create its tables somewhere fresh and
   * empty: on Postgres a new schema, put first on the search path until
   * the transaction ends; nothing on SQLite, whose tables made in the
   * transaction go when it rolls back.
   */
  enterScratchSchema(trx: Kysely<Record<string, Record<string, unknown>>>): Promise<void>;
}

// Text compared bytewise on Postgres too, as SQLite's BINARY does.
const PG_TEXT = 'text collate "C"';

const sqlite: PolicySqlDialect = {
  name: "sqlite",
  columnTypes: {
    string: "text",
    int: "integer",
    float: "real",
    bool: "integer",
    datetime: "text",
    json: "text",
    id: "text",
    enum: "text",
    file: "text",
  },
  compileOnly: () => ({
    createAdapter: () => new SqliteAdapter(),
    createDriver: () => new DummyDriver(),
    createIntrospector: (db) => new SqliteIntrospector(db),
    createQueryCompiler: () => new SqliteQueryCompiler(),
  }),
  encodeBool: (value) => (value ? 1 : 0),
  async enterScratchSchema() {
    // The rollback that ends the transaction drops the tables made in it.
  },
};

const postgres: PolicySqlDialect = {
  name: "postgres",
  columnTypes: {
    string: PG_TEXT,
    int: "bigint",
    float: "double precision",
    bool: "boolean",
    datetime: "timestamptz",
    json: "jsonb",
    id: PG_TEXT,
    enum: PG_TEXT,
    file: PG_TEXT,
  },
  compileOnly: () => ({
    createAdapter: () => new PostgresAdapter(),
    createDriver: () => new DummyDriver(),
    createIntrospector: (db) => new PostgresIntrospector(db),
    createQueryCompiler: () => new PostgresQueryCompiler(),
  }),
  encodeBool: (value) => value,
  async enterScratchSchema(trx) {
    // A schema of its own, so the scratch tables never meet the database's own.
    const schema = sql.id(scratchSchemaName());
    await sql`create schema ${schema}`.execute(trx);
    await sql`set local search_path to ${schema}`.execute(trx);
  },
};

function scratchSchemaName(): string {
  const random = Math.floor(Math.random() * 2 ** 48)
    .toString(16)
    .padStart(12, "0");
  return `svc_policy_${random}`;
}

const DIALECTS: Readonly<Record<PolicyDialectName, PolicySqlDialect>> = { sqlite, postgres };

/**
 * The dialect object for a name.
 *
 * @example
 * policySqlDialect("postgres").encodeBool(true); // true
 */
export function policySqlDialect(name: PolicyDialectName): PolicySqlDialect {
  if (!Object.hasOwn(DIALECTS, name)) throw new TypeError(`Unknown dialect: ${String(name)}.`);
  return DIALECTS[name];
}
