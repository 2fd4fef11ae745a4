import { type Kysely, type RawBuilder, sql } from "kysely";
import type { AnyTables, Dialect, Lockable } from "./dialect.js";

/** Postgres: concurrent writers coordinated by row and advisory locks, one database on the search path. */
export const postgresDialect: Dialect = {
  name: "postgres",
  systemName: "postgresql",
  concurrentWriters: true,
  notifies: true,
  statementErrorAbortsTransaction: true,
  serialKeyType: "bigserial",
  serialKeyRestarts: false,
  booleansAsIntegers: false,
  rowsNeedDecoding: false,
  forwardReferences: false,
  entityTableSuffix: undefined,
  async lockTransaction(trx: Kysely<AnyTables>, key: number): Promise<void> {
    await sql`select pg_advisory_xact_lock(${key})`.execute(trx);
  },
  async emptyTables(trx: Kysely<AnyTables>, tables: readonly string[]): Promise<void> {
    if (tables.length === 0) return;
    await sql`truncate table ${sql.join(tables.map((table) => sql.table(table)))}`.execute(trx);
  },
  lockForUpdate<TQuery extends Lockable<TQuery>>(query: TQuery): TQuery {
    return query.forUpdate();
  },
  attachedSchema(): undefined {
    // Package tables live in the application database itself.
    return undefined;
  },
  withAttachedSchema<TDB>(db: Kysely<TDB>): Kysely<TDB> {
    return db;
  },
  table(name: string): RawBuilder<unknown> {
    return sql.id(name);
  },
  existingColumn(table: string, column: string): RawBuilder<unknown> {
    return sql`${sql.id(table)}.${sql.id(column)}`;
  },
  encodeBool(value: boolean): boolean {
    return value;
  },
};
