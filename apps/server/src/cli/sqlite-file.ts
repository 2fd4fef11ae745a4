import Database from "better-sqlite3";

/**
 * Copies the SQLite database at `source` to the new file `target` with
 * SQLite's online backup API, through a connection of its own. The server
 * may keep reading and writing meanwhile: after a first step that only
 * counts the pages, all of them are copied in one step under one read
 * transaction (WAL readers never block the writer), so the copy is one
 * consistent snapshot; SQLite restarts the step by itself if another
 * connection wrote in between. The copy is then switched to a rollback
 * journal (one self-contained file; the server turns WAL back on when it
 * opens it) and checked with `PRAGMA integrity_check`.
 */
export async function copyDatabaseOnline(source: string, target: string): Promise<void> {
  const database = new Database(source, { fileMustExist: true });
  try {
    await database.backup(target, { progress: ({ remainingPages }) => remainingPages });
  } finally {
    database.close();
  }
  const copy = new Database(target, { fileMustExist: true });
  try {
    copy.pragma("journal_mode = DELETE");
  } finally {
    copy.close();
  }
}

/**
 * Runs `PRAGMA integrity_check` on a database file opened read-only.
 * Returns undefined when SQLite answers `ok`, else the first problem it
 * names (or why the file could not be read as a database at all).
 */
export function findIntegrityProblem(path: string): string | undefined {
  let database: Database.Database | undefined;
  try {
    database = new Database(path, { readonly: true, fileMustExist: true });
    const rows = database.pragma("integrity_check(10)") as { integrity_check: string }[];
    const problems = rows.map((row) => row.integrity_check).filter((line) => line !== "ok");
    return problems.length === 0 ? undefined : problems.join("; ");
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  } finally {
    database?.close();
  }
}

/**
 * Whether another connection, in this process or another, has the SQLite
 * file open. A connection to a WAL database holds a shared lock on it for
 * as long as it is open, so an exclusive lock asked for without waiting
 * fails while anyone else has the file open, even idle. (Checked once: a
 * server started right after the check is not noticed.) A file that is not
 * a database (`SQLITE_NOTADB`, `SQLITE_CORRUPT`) is in no server's use.
 */
export function isDatabaseInUse(path: string): boolean {
  const database = new Database(path, { fileMustExist: true, timeout: 0 });
  try {
    database.pragma("locking_mode = EXCLUSIVE");
    database.exec("BEGIN EXCLUSIVE");
    database.exec("COMMIT");
    return false;
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (code === "SQLITE_BUSY" || code === "SQLITE_LOCKED") return true;
    if (code === "SQLITE_NOTADB" || code === "SQLITE_CORRUPT") return false;
    throw error;
  } finally {
    database.close();
  }
}
