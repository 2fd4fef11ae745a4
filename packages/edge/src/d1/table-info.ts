import type { D1Database } from "./d1-types.js";

/** What the transaction overlay needs to know of one table. */
export interface TableInfo {
  readonly name: string;
  /** Every column, in table order. */
  readonly columns: readonly string[];
  /** The primary key's columns, in key order. */
  readonly primaryKey: readonly string[];
  /** Each column's default as SQL text (`pragma table_info`'s `dflt_value`), or null. */
  readonly defaults: readonly (string | null)[];
  /** The unique indexes other than the primary key, by name. */
  readonly uniques: readonly { readonly name: string; readonly columns: readonly string[] }[];
}

/** Double-quotes an SQL identifier. */
export function quoteId(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

interface ColumnRow {
  readonly name: string;
  readonly dflt_value: string | null;
  readonly pk: number;
}

interface IndexRow {
  readonly name: string;
  readonly unique: number;
  readonly origin: string;
  readonly partial: number;
}

/**
 * Reads table shapes from D1 once per isolate: the schema changes only with a
 * deploy (migrations run before the new Worker serves), and a deploy starts
 * new isolates.
 */
export function createTableInfoCache(db: D1Database): (table: string) => Promise<TableInfo> {
  const cache = new Map<string, Promise<TableInfo>>();
  const load = async (table: string): Promise<TableInfo> => {
    const [columns, indexes] = await db.batch([
      db.prepare(`pragma table_info(${quoteId(table)})`),
      db.prepare(`pragma index_list(${quoteId(table)})`),
    ]);
    const columnRows = (columns?.results ?? []) as unknown as ColumnRow[];
    if (columnRows.length === 0) throw new Error(`edge: no table ${table}`);
    const uniqueIndexes = ((indexes?.results ?? []) as unknown as IndexRow[]).filter(
      (index) => index.unique === 1 && index.origin !== "pk" && index.partial === 0,
    );
    const indexColumns =
      uniqueIndexes.length === 0
        ? []
        : await db.batch(
            uniqueIndexes.map((index) => db.prepare(`pragma index_info(${quoteId(index.name)})`)),
          );
    return {
      name: table,
      columns: columnRows.map((row) => row.name),
      primaryKey: columnRows
        .filter((row) => row.pk > 0)
        .sort((a, b) => a.pk - b.pk)
        .map((row) => row.name),
      defaults: columnRows.map((row) => row.dflt_value),
      uniques: uniqueIndexes.map((index, i) => ({
        name: index.name,
        columns: ((indexColumns[i]?.results ?? []) as { name: string; seqno: number }[])
          .sort((a, b) => a.seqno - b.seqno)
          .map((row) => row.name),
      })),
    };
  };
  return (table) => {
    let info = cache.get(table);
    if (info === undefined) {
      info = load(table);
      cache.set(table, info);
      info.catch(() => cache.delete(table));
    }
    return info;
  };
}
