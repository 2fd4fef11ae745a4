/**
 * D1 reports SQLite errors as one message: `D1_ERROR: UNIQUE constraint
 * failed: T.c: SQLITE_CONSTRAINT (extended: SQLITE_CONSTRAINT_UNIQUE)`. The
 * store recognizes violations by better-sqlite3's shape (`code` and the bare
 * message), so the driver hands it that shape.
 */
export class D1DriverError extends Error {
  override readonly name = "D1DriverError";
  readonly code: string;

  constructor(code: string, message: string, options: { cause?: unknown } = {}) {
    super(message, options);
    this.code = code;
  }
}

/** The commit of a transaction found the database changed since it began; run it again. */
export class WriteConflictError extends Error {
  override readonly name = "WriteConflictError";
  constructor() {
    super("The database changed while the transaction ran.");
  }
}

/** The SQL constraint whose failure means "the version moved": see `commit` in d1-connection.ts. */
export const CONFLICT_CONSTRAINT = "svc_edge_write_conflict";

const D1_MESSAGE =
  /^(?:D1_ERROR: )?(.*?)(?:: (SQLITE_[A-Z_]+)(?: \(extended: (SQLITE_[A-Z_]+)\))?)?$/s;

/** D1's error as the store expects a SQLite driver's; a write conflict as `WriteConflictError`. */
export function toDriverError(error: unknown): Error {
  if (!(error instanceof Error)) return new Error(String(error));
  if (error instanceof D1DriverError || error instanceof WriteConflictError) return error;
  const match = D1_MESSAGE.exec(error.message);
  const message = match?.[1] ?? error.message;
  if (message.includes(CONFLICT_CONSTRAINT)) return new WriteConflictError();
  const code = match?.[3] ?? match?.[2];
  if (code === undefined) return error;
  return new D1DriverError(code, message, { cause: error });
}

/** Whether `error` or one of its causes is a write conflict. */
export function isWriteConflict(error: unknown): boolean {
  for (let current = error, depth = 0; current instanceof Error && depth < 8; depth++) {
    if (current instanceof WriteConflictError) return true;
    current = current.cause;
  }
  return false;
}
