import {
  type CompiledQuery,
  type DatabaseConnection,
  type Dialect,
  type Driver,
  Kysely,
  type QueryResult,
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler,
} from "kysely";
import { CONFLICT_CONSTRAINT, toDriverError, WriteConflictError } from "./d1-errors.js";
import type { D1Database, D1PreparedStatement, D1Result } from "./d1-types.js";
import { Overlay, type OverlayRow } from "./overlay.js";
import { simulateWrite, UnsupportedStatementError } from "./simulate-write.js";
import { createTableInfoCache, type TableInfo } from "./table-info.js";

/**
 * The edge's own tables: one version counter every write moves, and the
 * guard row whose check fails a commit that finds it moved. Part of the
 * first D1 migration the build writes.
 */
export const EDGE_TABLES_SQL = [
  "create table if not exists _svc_edge_version (id integer primary key check (id = 1), v integer not null)",
  "insert or ignore into _svc_edge_version (id, v) values (1, 0)",
  `create table if not exists _svc_edge_guard (id integer primary key, ok integer not null, constraint ${CONFLICT_CONSTRAINT} check (ok = 1))`,
] as const;

const READ_VERSION = "select v from _svc_edge_version where id = 1";
const BUMP_VERSION = "update _svc_edge_version set v = v + 1 where id = 1";
const GUARD_VERSION =
  "insert or replace into _svc_edge_guard (id, ok) select 1, count(*) from _svc_edge_version where id = 1 and v = ?";

const READ_START = /^\s*(?:select|with|pragma\s+\w+\s*\()/i;

function isRead(query: CompiledQuery): boolean {
  const { kind } = query.query;
  if (kind === "SelectQueryNode") return true;
  if (kind === "RawNode") return READ_START.test(query.sql);
  return false;
}

function bindAll(statement: D1PreparedStatement, parameters: readonly unknown[]) {
  return parameters.length === 0 ? statement : statement.bind(...parameters.map(toD1Value));
}

function toD1Value(value: unknown): unknown {
  if (typeof value === "boolean") return value ? 1 : 0;
  if (typeof value === "bigint") return Number(value);
  if (value === undefined) return null;
  return value;
}

function toQueryResult<R>(result: D1Result | undefined): QueryResult<R> {
  const changes = result?.meta.changes ?? 0;
  return {
    rows: (result?.results ?? []) as R[],
    numAffectedRows: BigInt(changes),
    ...(result?.meta.last_row_id !== undefined && {
      insertId: BigInt(result.meta.last_row_id),
    }),
  };
}

/** The state of one transaction: the version it started from and its pending writes. */
interface Transaction {
  version: number | undefined;
  readonly overlay: Overlay;
  readonly writes: { readonly sql: string; readonly parameters: readonly unknown[] }[];
}

/**
 * One kysely connection over D1. Outside a transaction every statement runs
 * at once; a write runs in one batch with the version bump. Inside a
 * transaction reads run at once through the overlay and writes are computed
 * against it, then sent in the commit's batch (see `commit`).
 */
class D1Connection implements DatabaseConnection {
  readonly #db: D1Database;
  readonly #tableInfo: (table: string) => Promise<TableInfo>;
  #transaction: Transaction | undefined;

  constructor(db: D1Database, tableInfo: (table: string) => Promise<TableInfo>) {
    this.#db = db;
    this.#tableInfo = tableInfo;
  }

  begin(): void {
    if (this.#transaction !== undefined) throw new Error("edge: nested transaction");
    this.#transaction = { version: undefined, overlay: new Overlay(), writes: [] };
  }

  rollback(): void {
    this.#transaction = undefined;
  }

  /**
   * Sends the transaction's writes in one D1 batch, which D1 runs as one
   * SQLite transaction: all of them or none. The batch starts with a guard
   * that fails unless the version counter still holds what it held when the
   * transaction first read, and moves it: a transaction commits only onto
   * the database it read, so concurrent transactions are serializable, and a
   * loser gets `WriteConflictError` (the caller runs it again).
   */
  async commit(): Promise<void> {
    const transaction = this.#transaction;
    this.#transaction = undefined;
    if (transaction === undefined || transaction.writes.length === 0) return;
    const version = transaction.version ?? (await this.#readVersion());
    const statements = [
      this.#db.prepare(GUARD_VERSION).bind(version),
      this.#db.prepare(BUMP_VERSION),
      ...transaction.writes.map((write) => bindAll(this.#db.prepare(write.sql), write.parameters)),
    ];
    try {
      await this.#db.batch(statements);
    } catch (error) {
      throw toDriverError(error);
    }
  }

  async #readVersion(): Promise<number> {
    const result = await this.#db.prepare(READ_VERSION).all<{ v: number }>();
    const row = result.results[0];
    if (row === undefined) throw new Error("edge: the _svc_edge_version row is missing");
    return row.v;
  }

  /** A read inside the transaction: through the overlay; the first one also reads the version. */
  async #readInTransaction(
    transaction: Transaction,
    sql: string,
    parameters: readonly unknown[],
  ): Promise<D1Result> {
    const applied = transaction.overlay.apply(sql, parameters);
    const statement = bindAll(this.#db.prepare(applied.sql), applied.parameters);
    try {
      if (transaction.version !== undefined) return await statement.all();
      const [version, result] = await this.#db.batch([this.#db.prepare(READ_VERSION), statement]);
      transaction.version = (version?.results[0] as { v: number } | undefined)?.v;
      if (result === undefined) throw new Error("edge: D1 answered no result");
      return result;
    } catch (error) {
      throw toDriverError(error);
    }
  }

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    const transaction = this.#transaction;
    if (transaction === undefined) return this.#executeAlone(query);
    if (isRead(query)) {
      return toQueryResult(await this.#readInTransaction(transaction, query.sql, query.parameters));
    }
    const simulated = simulateWrite(
      {
        overlay: transaction.overlay,
        tableInfo: this.#tableInfo,
        read: async (sql, parameters) =>
          (await this.#readInTransaction(transaction, sql, parameters)).results as OverlayRow[],
      },
      query,
    );
    if (simulated === null) {
      throw new UnsupportedStatementError(
        `edge: a ${query.query.kind} statement inside a transaction`,
      );
    }
    const { rows, affected } = await simulated;
    transaction.writes.push({ sql: query.sql, parameters: query.parameters });
    return { rows: rows as R[], numAffectedRows: BigInt(affected) };
  }

  async #executeAlone<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    const statement = bindAll(this.#db.prepare(query.sql), query.parameters);
    try {
      if (isRead(query)) return toQueryResult(await statement.all());
      // Every write moves the version, so a transaction that read before it cannot commit after it.
      const [result] = await this.#db.batch([statement, this.#db.prepare(BUMP_VERSION)]);
      return toQueryResult(result);
    } catch (error) {
      throw toDriverError(error);
    }
  }

  // biome-ignore lint/correctness/useYield: streaming is not offered; the method must exist.
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error("edge: D1 does not stream query results");
  }
}

/** SQLite's SQL, but connections are independent: D1 serializes writes itself. */
class D1Adapter extends SqliteAdapter {
  override get supportsMultipleConnections(): boolean {
    return true;
  }
}

class D1Driver implements Driver {
  readonly #db: D1Database;
  readonly #tableInfo: (table: string) => Promise<TableInfo>;

  constructor(db: D1Database) {
    this.#db = db;
    this.#tableInfo = createTableInfoCache(db);
  }

  async init(): Promise<void> {}

  async acquireConnection(): Promise<DatabaseConnection> {
    return new D1Connection(this.#db, this.#tableInfo);
  }

  async beginTransaction(connection: DatabaseConnection): Promise<void> {
    (connection as D1Connection).begin();
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    await (connection as D1Connection).commit();
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    (connection as D1Connection).rollback();
  }

  async releaseConnection(): Promise<void> {}

  async destroy(): Promise<void> {}
}

/**
 * kysely's SQLite dialect over a D1 binding, with transactions: D1 has no
 * interactive ones, so a transaction's writes are computed against an
 * overlay (its reads see them) and committed by one `batch()` guarded by a
 * version check (see `D1Connection.commit`).
 */
export function createD1Dialect(db: D1Database): Dialect {
  return {
    createAdapter: () => new D1Adapter(),
    createDriver: () => new D1Driver(db),
    createIntrospector: (kysely) => new SqliteIntrospector(kysely),
    createQueryCompiler: () => new SqliteQueryCompiler(),
  };
}

/** A kysely instance over D1 (see `createD1Dialect`). */
export function openD1<T>(db: D1Database): Kysely<T> {
  return new Kysely<T>({ dialect: createD1Dialect(db) });
}

export { WriteConflictError };
