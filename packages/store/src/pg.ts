import { Kysely, PostgresDialect, sql } from "kysely";
import pg from "pg";
import type { EntityTables, StoreDatabase } from "./database.js";

/** Options of `openPostgres`. */
export interface PostgresOptions {
  /** Most connections the pool opens. Default 10. */
  readonly max?: number;
}

const INT8 = 20;
const TIMESTAMPTZ = 1184;
// `2024-05-01 10:00:00.5+00`, `0001-01-01 00:00:00+00`, offsets with minutes or seconds.
const PG_TIMESTAMPTZ =
  /^(\d{4,})-(\d\d)-(\d\d) (\d\d:\d\d:\d\d)(?:\.(\d+))?([+-]\d\d)(?::(\d\d))?(?::(\d\d))?$/;

/** Postgres timestamptz text to the API's ISO 8601 UTC form (millisecond precision). */
export function parseTimestamptz(text: string): string {
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

/**
 * Opens a Postgres connection pool for the store. The session time zone is
 * set to UTC on every connection; the pool has its own type parsers, so
 * other pg users in the process are unaffected.
 *
 * @example
 * const { db, dialect, close } = openPostgres(process.env.DATABASE_URL ?? "", { max: 20 });
 * const store = createStore({ db, dialect, manifest });
 */
export function openPostgres(
  url: string,
  options: PostgresOptions = {},
): StoreDatabase<"postgres"> {
  const pool = new pg.Pool({ connectionString: url, max: options.max ?? 10, types: poolTypes() });
  // An idle connection dropped by the server emits "error" on the pool; without a
  // listener that would crash the process. The next query reports the failure.
  pool.on("error", () => {});
  const db = new Kysely<EntityTables>({
    dialect: new PostgresDialect({
      pool,
      onCreateConnection: async (connection) => {
        await connection.executeQuery(sql`set time zone 'UTC'`.compile(db));
      },
    }),
  });
  return {
    db,
    dialect: "postgres",
    async close() {
      await db.destroy();
      // Kysely ends the pool only if it ever ran a query.
      if (!pool.ended) await pool.end();
    },
  };
}
