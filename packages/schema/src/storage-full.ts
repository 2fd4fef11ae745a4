/**
 * The code every svc package answers when the database (or the disk under
 * it) has no room for a write, with its HTTP status: 507 Insufficient
 * Storage, and a `Retry-After` of `STORAGE_FULL_RETRY_AFTER_SECS`.
 */
export const STORAGE_FULL = { code: "STORAGE_FULL", status: 507 } as const;

/** How long a client is asked to wait after `STORAGE_FULL` (`Retry-After`, `retry_after_secs`). */
export const STORAGE_FULL_RETRY_AFTER_SECS = 30;

/**
 * Driver and system error codes that mean "no room left":
 * - better-sqlite3: `SQLITE_FULL` (a write found the disk, or the
 *   database's `max_page_count`, full) and `SQLITE_IOERR_SHMSIZE` (the WAL
 *   index could not grow, which SQLite documents as a sign of a full
 *   volume). Other I/O errors (`SQLITE_IOERR_WRITE`, `_FSYNC`) may as well
 *   be a failing disk, and are not read as full.
 * - Postgres: SQLSTATE `53100` (`disk_full`).
 * - Node's file system: `ENOSPC` (no space left on device) and `EDQUOT`
 *   (disk quota exceeded), as local file storage meets them.
 * - `STORAGE_FULL`: a package's own error already saying so.
 */
const FULL_CODES: ReadonlySet<string> = new Set([
  "SQLITE_FULL",
  "SQLITE_IOERR_SHMSIZE",
  "53100",
  "ENOSPC",
  "EDQUOT",
  STORAGE_FULL.code,
]);

/** How many `cause` links are followed (a cycle must not hang the error path). */
const MAX_CAUSE_DEPTH = 8;

/**
 * Whether `error`, or any error in its `cause` chain, means that storage
 * is full. Packages wrap driver errors (keeping them as `cause`), so the
 * chain is where the driver's code is found.
 *
 * @example
 * isStorageFull(Object.assign(new Error("database or disk is full"), { code: "SQLITE_FULL" })); // true
 */
export function isStorageFull(error: unknown): boolean {
  let current: unknown = error;
  for (let depth = 0; depth < MAX_CAUSE_DEPTH; depth += 1) {
    if (typeof current !== "object" || current === null) return false;
    const code = (current as { code?: unknown }).code;
    if (typeof code === "string" && FULL_CODES.has(code)) return true;
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}
