/** How many distinct statements get a name; later ones run unnamed, as before. */
export const MAX_NAMED_STATEMENTS = 256;

// Writes only: their plans never depend on the parameters' values, and a
// column added by a migration does not change what they return (their
// columns are listed), so a prepared plan stays right. Reads keep
// Postgres's per-execution planning.
const NAMEABLE = /^\s*(?:\/\*[^*]*\*\/\s*)?(insert|update|delete)\s/i;

// What a prepared write fails with after its table changed under it:
// "cached plan must not change result type", "prepared statement does not
// exist", and a parameter whose type was fixed when it was prepared
// meeting a column of another type.
const STALE_CODES: ReadonlySet<unknown> = new Set(["0A000", "26000", "42804"]);

/** The names of one pool's repeated writes; see `createStatementNames`. */
export interface StatementNames {
  /** The name `text` runs under, or undefined to run it unnamed. */
  nameOf(text: string): string | undefined;
  /** Rethrows `error`; when it says the prepared plan went stale, `text` gets a new name next time. */
  failed(text: string, error: unknown): never;
}

/**
 * Names for a pool's repeated writes, so each runs as a named prepared
 * statement: the first use on a connection parses and plans it, every later
 * one only binds and executes it, which saves Postgres that work on each
 * write. One table per pool, bounded by `MAX_NAMED_STATEMENTS`, so no
 * connection ever holds more prepared statements than that (plus the stale
 * ones a schema change leaves behind).
 */
export function createStatementNames(): StatementNames {
  const names = new Map<string, string>();
  let issued = 0;
  return {
    nameOf(text) {
      const known = names.get(text);
      if (known !== undefined || names.size >= MAX_NAMED_STATEMENTS || !NAMEABLE.test(text)) {
        return known;
      }
      const name = `svc_w${issued++}`;
      names.set(text, name);
      return name;
    },
    // A table changed under a prepared statement in a way Postgres does not
    // absorb by re-planning (a column's type): that execution fails, and the
    // text gets a new name, so the next one is prepared afresh.
    failed(text, error) {
      if (STALE_CODES.has((error as { code?: unknown } | null)?.code)) names.delete(text);
      throw error;
    },
  };
}
