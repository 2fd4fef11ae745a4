/**
 * The part of Cloudflare's D1 binding the edge uses, written out so the
 * package needs no workers type package: a Worker's `env.DB` satisfies it.
 */
export interface D1Database {
  prepare(query: string): D1PreparedStatement;
  batch<T = Record<string, unknown>>(statements: D1PreparedStatement[]): Promise<D1Result<T>[]>;
}

/** One prepared statement of a D1 database. */
export interface D1PreparedStatement {
  bind(...values: unknown[]): D1PreparedStatement;
  all<T = Record<string, unknown>>(): Promise<D1Result<T>>;
}

/** What D1 answers for one statement. */
export interface D1Result<T = Record<string, unknown>> {
  readonly results: T[];
  readonly meta: { readonly changes?: number; readonly last_row_id?: number };
}
