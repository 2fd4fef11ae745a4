import { findEntity } from "@svc/schema";
import { sql } from "kysely";
import { type AccessTestDatabase, withScratchTables } from "../access-tests/scratch-database.js";
import type { CompiledPolicies, PolicyRow } from "../condition.js";
import { policySqlDialect } from "../sql-dialects.js";
import { defaultRow } from "./domain.js";
import type { IndexAdvice } from "./index-advice.js";

/** How long the filter or lookup of a piece of index advice takes on a seeded table, without and with the index. */
export interface IndexMeasurement {
  readonly database: string;
  readonly rows: number;
  /** Median milliseconds per query. */
  readonly withoutIndex: number;
  readonly withIndex: number;
}

const DISTINCT = 1000;
const RUNS = 25;

function valueFor(type: string, i: number, values?: readonly string[]): unknown {
  const n = i % DISTINCT;
  switch (type) {
    case "int":
    case "float":
      return n;
    case "bool":
      return n % 2 === 0;
    case "datetime":
      return new Date(Date.UTC(2024, 0, 1) + n * 1000).toISOString();
    case "enum":
      return values?.[n % values.length] ?? "";
    default:
      return `v${n}`;
  }
}

async function median(run: () => Promise<unknown>): Promise<number> {
  await run();
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const start = performance.now();
    await run();
    times.push(performance.now() - start);
  }
  times.sort((a, b) => a - b);
  return Number((times[Math.floor(RUNS / 2)] ?? 0).toFixed(3));
}

/**
 * Measures what an index the lint advises buys: seeds the entity's table
 * with `rows` rows (1000 distinct values in the advised columns), times
 * the filter or lookup the rule makes (`select "id" from "<Entity>" where
 * "<col>" = ? ...`, the median of 25 runs), adds the index and times it
 * again. Runs in a rolled-back transaction on `database`.
 *
 * @example
 * const m = await measureIndex(database, compiled, advice, { rows: 20_000 });
 * `${m.withoutIndex} ms -> ${m.withIndex} ms`;
 */
export async function measureIndex(
  database: AccessTestDatabase,
  compiled: CompiledPolicies,
  advice: IndexAdvice,
  options: { readonly rows?: number } = {},
): Promise<IndexMeasurement> {
  const count = Math.min(Math.max(options.rows ?? 20_000, 1), 200_000);
  const entity = findEntity(compiled.manifest, advice.entity);
  if (entity === undefined) throw new Error(`unreachable: ${advice.entity} is in the manifest`);
  const dialect = policySqlDialect(database.dialect);
  return withScratchTables(database, compiled, async (scratch) => {
    const rows: PolicyRow[] = [];
    for (let i = 0; i < count; i++) {
      const row: Record<string, unknown> = {
        ...defaultRow(entity),
        id: i.toString(16).padStart(40, "0"),
      };
      for (const column of advice.columns) {
        const field = entity.fields.find((candidate) => candidate.name === column);
        if (field !== undefined)
          row[column] = valueFor(field.type, i, field.type === "enum" ? field.values : undefined);
      }
      rows.push(row);
    }
    await scratch.load({ [entity.name]: rows });
    const probe = rows[Math.floor(count / 2)] ?? {};
    const where = sql.join(
      advice.columns.map((column) => {
        const value = probe[column];
        const bound = typeof value === "boolean" ? dialect.encodeBool(value) : value;
        return sql`${sql.ref(column)} = ${bound}`;
      }),
      sql` and `,
    );
    const query = sql`select ${sql.ref("id")} from ${sql.table(entity.name)} where ${where}${advice.code === "UNINDEXED_LOOKUP" ? sql` limit 1` : sql``}`;
    const analyze = sql.raw(`analyze "${entity.name}"`);
    await analyze.execute(scratch.db);
    const withoutIndex = await median(() => query.execute(scratch.db));
    await sql.raw(advice.createIndex).execute(scratch.db);
    await analyze.execute(scratch.db);
    const withIndex = await median(() => query.execute(scratch.db));
    return { database: database.name, rows: count, withoutIndex, withIndex };
  });
}
