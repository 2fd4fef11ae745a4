import { quoteId, type TableInfo } from "./table-info.js";

/** A row as the overlay holds it: column name to SQLite value. */
export type OverlayRow = Record<string, unknown>;

interface TableOverlay {
  readonly info: TableInfo;
  /** Primary key (JSON of its values) to the row as written, or null once deleted. */
  readonly rows: Map<string, OverlayRow | null>;
}

/** The JSON text of a row's primary key. */
export function keyOf(info: TableInfo, row: OverlayRow): string {
  return JSON.stringify(info.primaryKey.map((column) => toJSONValue(row[column])));
}

function toJSONValue(value: unknown): unknown {
  if (typeof value === "bigint") return Number(value);
  if (value instanceof Uint8Array || value instanceof ArrayBuffer) {
    throw new Error("edge: binary values are not supported inside a transaction");
  }
  return value ?? null;
}

/**
 * What a transaction has written so far and not committed: D1 has no
 * interactive transactions, so writes wait for the commit's batch and reads
 * inside the transaction see them through common table expressions that
 * shadow the written tables — `"T" as (rows of main."T" not written by the
 * transaction, union all the rows it wrote)`.
 */
export class Overlay {
  readonly #tables = new Map<string, TableOverlay>();

  /** Whether nothing was written yet. */
  get isEmpty(): boolean {
    return this.#tables.size === 0;
  }

  /** Records `row` (or its deletion, `null`) under `key`. */
  set(info: TableInfo, key: string, row: OverlayRow | null): void {
    let table = this.#tables.get(info.name);
    if (table === undefined) {
      table = { info, rows: new Map() };
      this.#tables.set(info.name, table);
    }
    table.rows.set(key, row);
  }

  /**
   * Prefixes `sql` with the shadowing expressions (merging into its own
   * `with` clause when it has one); the overlay's parameters come first.
   */
  apply(sql: string, parameters: readonly unknown[]): { sql: string; parameters: unknown[] } {
    if (this.#tables.size === 0) return { sql, parameters: [...parameters] };
    const ctes: string[] = [];
    const params: unknown[] = [];
    for (const { info, rows } of this.#tables.values()) {
      const columns = info.columns.map(quoteId).join(", ");
      const keyExpr =
        info.primaryKey.length === 1
          ? quoteId(info.primaryKey[0] as string)
          : `json_array(${info.primaryKey.map(quoteId).join(", ")})`;
      const keys = [...rows.keys()].map((key) => {
        const values = JSON.parse(key) as unknown[];
        return info.primaryKey.length === 1 ? values[0] : values;
      });
      const images = [...rows.values()]
        .filter((row): row is OverlayRow => row !== null)
        .map((row) => info.columns.map((column) => toJSONValue(row[column])));
      const extracted = info.columns
        .map((column, i) => `json_extract(value, '$[${i}]') as ${quoteId(column)}`)
        .join(", ");
      const keyList =
        info.primaryKey.length === 1
          ? "select value from json_each(?)"
          : "select json(value) from json_each(?)";
      ctes.push(
        `${quoteId(info.name)} as (select ${columns} from main.${quoteId(info.name)} where ${keyExpr} not in (${keyList}) union all select ${extracted} from json_each(?))`,
      );
      params.push(JSON.stringify(keys), JSON.stringify(images));
    }
    const head = /^\s*with\s+(recursive\s+)?/i.exec(sql);
    const text =
      head === null
        ? `with ${ctes.join(", ")} ${sql}`
        : `with ${head[1] ?? ""}${ctes.join(", ")}, ${sql.slice(head[0].length)}`;
    return { sql: text, parameters: [...params, ...parameters] };
  }
}
