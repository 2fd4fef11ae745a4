import type pg from "pg";

/** How many distinct statements get a name; later ones run unnamed, as before. */
export const MAX_NAMED_STATEMENTS = 256;

// Writes only: their plans never depend on the parameters' values, and a
// column added by a migration does not change what they return (their
// columns are listed), so a prepared plan stays right. Reads keep
// Postgres's per-execution planning.
const NAMEABLE = /^\s*(insert|update|delete)\s/i;

type QueryFunction = (...args: unknown[]) => unknown;

// What a prepared write fails with after its table changed under it:
// "cached plan must not change result type", "prepared statement does not
// exist", and a parameter whose type was fixed when it was prepared
// meeting a column of another type.
const STALE_CODES: ReadonlySet<unknown> = new Set(["0A000", "26000", "42804"]);

/**
 * Runs the pool's repeated writes as named prepared statements: the first
 * use on a connection parses and plans the statement, every later one only
 * binds and executes it, which saves Postgres that work on each write.
 * Names come from one table per pool, bounded by `MAX_NAMED_STATEMENTS`, so
 * no connection ever holds more prepared statements than that.
 *
 * It patches `query` of each client the pool connects (the pool's
 * `connect` event); calls with a config object, a cursor or no parameters
 * pass through unchanged.
 */
export function nameRepeatedWrites(pool: pg.Pool): void {
  const names = new Map<string, string>();
  let issued = 0;
  const nameOf = (text: string): string | undefined => {
    const known = names.get(text);
    if (known !== undefined || names.size >= MAX_NAMED_STATEMENTS || !NAMEABLE.test(text)) {
      return known;
    }
    const name = `svc_w${issued++}`;
    names.set(text, name);
    return name;
  };
  // A table changed under a prepared statement in a way Postgres does not
  // absorb by re-planning (a column's type): that execution fails, and the
  // text gets a new name, so the next one is prepared afresh.
  const forgetStale = (text: string, error: unknown): never => {
    if (STALE_CODES.has((error as { code?: unknown } | null)?.code)) names.delete(text);
    throw error;
  };
  pool.on("connect", (client) => {
    const query = client.query.bind(client) as QueryFunction;
    const named: QueryFunction = (text, values, ...rest) => {
      if (typeof text === "string" && Array.isArray(values) && values.length > 0) {
        const name = nameOf(text);
        if (name !== undefined) {
          const result = query({ name, text, values }, ...rest);
          return result instanceof Promise
            ? result.catch((error: unknown) => forgetStale(text, error))
            : result;
        }
      }
      return query(text, values, ...rest);
    };
    (client as unknown as { query: QueryFunction }).query = named;
  });
}
