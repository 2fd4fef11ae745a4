import { type Kysely, type RawBuilder, sql } from "kysely";
import type { Dialect, Lockable } from "./dialect.js";

/** SQLite: one writer at a time, attached databases for package tables, booleans as 0/1. */
export const sqliteDialect: Dialect = {
  name: "sqlite",
  systemName: "sqlite",
  concurrentWriters: false,
  notifies: false,
  statementErrorAbortsTransaction: false,
  serialKeyType: "integer",
  serialKeyRestarts: true,
  booleansAsIntegers: true,
  lockForUpdate<TQuery extends Lockable<TQuery>>(query: TQuery): TQuery {
    // The write transaction already holds the database.
    return query;
  },
  attachedSchema(schema: string | undefined): string | undefined {
    return schema;
  },
  withAttachedSchema<TDB>(db: Kysely<TDB>, schema: string | undefined): Kysely<TDB> {
    return schema === undefined ? db : db.withSchema(schema);
  },
  table(name: string, schema?: string): RawBuilder<unknown> {
    return schema === undefined ? sql.id(name) : sql`${sql.id(schema)}.${sql.id(name)}`;
  },
  existingColumn(_table: string, column: string): RawBuilder<unknown> {
    return sql.id(column);
  },
  encodeBool(value: boolean): number {
    return value ? 1 : 0;
  },
};
