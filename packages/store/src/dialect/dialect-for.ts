import type { Dialect, StoreDialect } from "./dialect.js";
import { postgresDialect } from "./pg.js";
import { sqliteDialect } from "./sqlite.js";

/**
 * The dialect object for a name (or the object itself, so options may take
 * either).
 *
 * @example
 * dialectFor("postgres").lockForUpdate(query);
 */
export function dialectFor(dialect: StoreDialect | Dialect): Dialect {
  if (typeof dialect !== "string") return dialect;
  const found = DIALECTS[dialect];
  if (found === undefined) throw new TypeError(`Unknown dialect: ${String(dialect)}.`);
  return found;
}

/** Whether `value` names a dialect the store speaks (for configuration and command lines). */
export function isStoreDialect(value: unknown): value is StoreDialect {
  return typeof value === "string" && Object.hasOwn(DIALECTS, value);
}

const DIALECTS: Readonly<Record<StoreDialect, Dialect>> = {
  sqlite: sqliteDialect,
  postgres: postgresDialect,
};
