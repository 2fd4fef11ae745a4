import { CompiledQuery, Kysely, PostgresDialect } from "kysely";
import pg from "pg";
import type { EntityTables, StoreDatabase } from "./database.js";
import { speedUpClients } from "./pg-client-speedups.js";

export { createPgSignal, type PgSignal, type PgSignalOptions } from "./pg-signal.js";

/** Options of `openPostgres`. */
export interface PostgresOptions {
  /**
   * Most connections of the writer pool (`db`): transactions, migrations,
   * and the framework packages' own tables (sessions, the change log, jobs).
   * Default 10.
   */
  readonly max?: number;
  /**
   * Most connections of the read pool (`readDb`), which serves the store's
   * reads outside a transaction. Its sessions are read-only
   * (`default_transaction_read_only`). Default 4, the spec's read
   * connection pool; 0 opens no read pool (reads share the writer pool).
   */
  readonly readMax?: number;
}

/** The read pool's default size: the spec's "Read connection pool: 4 connections". */
export const DEFAULT_READ_POOL_SIZE = 4;

/** The writer pool's default size. */
export const DEFAULT_WRITE_POOL_SIZE = 10;

const INT8 = 20;
const TIMESTAMPTZ = 1184;
// `2024-05-01 10:00:00.5+00`, `0001-01-01 00:00:00+00`, offsets with minutes or seconds.
const PG_TIMESTAMPTZ =
  /^(\d{4,})-(\d\d)-(\d\d) (\d\d:\d\d:\d\d)(?:\.(\d+))?([+-]\d\d)(?::(\d\d))?(?::(\d\d))?$/;

/**
 * A timestamptz in UTC with a four-digit year, as every value reads in the
 * store's sessions (they set the time zone to UTC): rewritten with string
 * slices, no `Date`, since every row read or written carries one or more.
 */
const PG_UTC_TIMESTAMPTZ = /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(?:\.\d{1,6})?\+00$/;

/** Postgres timestamptz text to the API's ISO 8601 UTC form (millisecond precision). */
export function parseTimestamptz(text: string): string {
  if (PG_UTC_TIMESTAMPTZ.test(text)) {
    // `YYYY-MM-DD HH:MM:SS` then an optional `.f` to `.ffffff`, then `+00`.
    const fraction = text.length === 22 ? "" : text.slice(20, -3);
    return `${text.slice(0, 10)}T${text.slice(11, 19)}.${fraction.padEnd(3, "0").slice(0, 3)}Z`;
  }
  const match = PG_TIMESTAMPTZ.exec(text);
  if (match === null) return new Date(text).toISOString();
  const [
    ,
    year,
    month,
    day,
    time,
    fraction = "",
    offsetHours,
    offsetMinutes = "00",
    offsetSeconds,
  ] = match;
  const millis = fraction.padEnd(3, "0").slice(0, 3);
  let date = new Date(`${year}-${month}-${day}T${time}.${millis}${offsetHours}:${offsetMinutes}`);
  if (offsetSeconds !== undefined) {
    const sign = offsetHours?.startsWith("-") ? -1 : 1;
    date = new Date(date.getTime() - sign * Number(offsetSeconds) * 1000);
  }
  return date.toISOString();
}

/**
 * Type parsers for one pool, never pg's global ones: int8 (bigint columns,
 * `count(*)`) as a number (the store only writes safe integers),
 * timestamptz as an ISO string. Booleans, doubles and jsonb keep pg's
 * defaults (boolean, number, parsed JSON).
 */
function poolTypes(): pg.CustomTypesConfig {
  const types = new pg.TypeOverrides();
  types.setTypeParser(INT8, "text", Number);
  types.setTypeParser(TIMESTAMPTZ, "text", parseTimestamptz);
  return types;
}

function checkPoolSize(name: string, value: number, min: number): number {
  if (!Number.isInteger(value) || value < min) {
    throw new TypeError(
      `openPostgres: ${name} must be an integer of at least ${min}, got ${value}`,
    );
  }
  return value;
}

/** A kysely instance over its own pool; every new connection runs `setup` first. */
function pooled(
  url: string,
  max: number,
  setup: readonly string[],
): { db: Kysely<EntityTables>; pool: pg.Pool } {
  const pool = new pg.Pool({ connectionString: url, max, types: poolTypes() });
  // An idle connection dropped by the server emits "error" on the pool; without a
  // listener that would crash the process. The next query reports the failure.
  pool.on("error", () => {});
  speedUpClients(pool);
  const db = new Kysely<EntityTables>({
    dialect: new PostgresDialect({
      pool,
      onCreateConnection: async (connection) => {
        for (const statement of setup) {
          await connection.executeQuery(CompiledQuery.raw(statement));
        }
      },
    }),
  });
  return { db, pool };
}

/**
 * Opens the store's Postgres pools: a writer pool (`db`, default 10
 * connections) for transactions and everything else, and a read pool
 * (`readDb`, default 4, read-only sessions) for the store's reads outside
 * a transaction, so list and get requests never wait for a connection a
 * long transaction holds, nor take all of the writers'. Both reach the same
 * database: a read issued after a commit sees it. The session time zone is
 * set to UTC on every connection; the pools have their own type parsers,
 * so other pg users in the process are unaffected. `close` ends both.
 *
 * @example
 * const { db, readDb, dialect, close } = openPostgres(process.env.DATABASE_URL ?? "", { max: 20 });
 * const store = createStore({ db, readDb, dialect, manifest });
 */
export function openPostgres(
  url: string,
  options: PostgresOptions = {},
): StoreDatabase<"postgres"> {
  const max = checkPoolSize("max", options.max ?? DEFAULT_WRITE_POOL_SIZE, 1);
  const readMax = checkPoolSize("readMax", options.readMax ?? DEFAULT_READ_POOL_SIZE, 0);
  const writer = pooled(url, max, ["set time zone 'UTC'"]);
  const reader =
    readMax === 0
      ? writer
      : pooled(url, readMax, ["set time zone 'UTC'", "set default_transaction_read_only = on"]);
  return {
    db: writer.db,
    readDb: reader.db,
    dialect: "postgres",
    async close() {
      for (const { db, pool } of reader === writer ? [writer] : [reader, writer]) {
        await db.destroy();
        // Kysely ends a pool only if it ever ran a query.
        if (!pool.ended) await pool.end();
      }
    },
  };
}
