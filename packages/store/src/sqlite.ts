import Database from "better-sqlite3";
import { Kysely, type SqliteDatabase, SqliteDialect } from "kysely";
import type { EntityTables, StoreDatabase } from "./database.js";

/** How long a statement waits for another connection's write lock before failing. */
const BUSY_TIMEOUT_MS = 5000;

/** How many prepared statements a connection keeps for reuse. */
const STATEMENT_CACHE_SIZE = 256;

/**
 * Kysely prepares every query anew; the store builds the same few SQL texts
 * over and over, so keep their prepared statements (least recently used out
 * first). SQLite re-prepares a cached statement by itself after a schema change.
 */
function withStatementCache(database: Database.Database): SqliteDatabase {
  const cache = new Map<string, Database.Statement>();
  return {
    close: () => database.close(),
    prepare(text) {
      let statement = cache.get(text);
      if (statement === undefined) {
        statement = database.prepare(text);
        if (cache.size >= STATEMENT_CACHE_SIZE) {
          const oldest = cache.keys().next();
          if (oldest.done !== true) cache.delete(oldest.value);
        }
      } else {
        cache.delete(text);
      }
      cache.set(text, statement);
      return statement;
    },
  };
}

const ATTACH_NAME = /^[a-z][a-z0-9_]{0,30}$/;

/** Options of `openSqlite`. */
export interface SqliteOptions {
  /**
   * Further databases to attach to the connection, schema name to file path
   * (or `:memory:`). Framework packages keep their tables there (see
   * `PackageMigrations.schema`), and one transaction spans every attached
   * database. In WAL mode a commit is atomic within each file, not across
   * files: a host crash (not a process crash) during a commit can keep one
   * file's part and drop the other's.
   */
  readonly attach?: Readonly<Record<string, string>>;
}

/**
 * Opens (or creates) the SQLite database file at `path` for the store. The
 * parent directory must exist; creating it is the app's job.
 *
 * Pragmas: `journal_mode = WAL` (readers never block the writer),
 * `busy_timeout = 5000`, `foreign_keys = ON` (SQLite leaves them off by
 * default), and `synchronous = NORMAL`. In WAL mode NORMAL makes each commit
 * append to the WAL file before it returns and syncs only at checkpoints:
 * a killed process (even `kill -9`) loses no committed transaction, because
 * the data is already in the operating system's file cache; only a power
 * loss or OS crash can drop the last few commits, and never corrupts the file.
 *
 * @example
 * const { db, dialect, close } = openSqlite(".svc/data.db", { attach: { auth: ":memory:" } });
 * const store = createStore({ db, dialect, manifest });
 */
export function openSqlite(path: string, options: SqliteOptions = {}): StoreDatabase<"sqlite"> {
  const database = new Database(path);
  database.pragma("journal_mode = WAL");
  for (const [schema, file] of Object.entries(options.attach ?? {})) {
    if (!ATTACH_NAME.test(schema)) throw new TypeError(`openSqlite: bad attach name ${schema}`);
    // The file name is a bound parameter; the schema name was checked above.
    database.prepare(`attach database ? as ${schema}`).run(file);
    if (file !== ":memory:" && file !== "") database.pragma(`${schema}.journal_mode = WAL`);
  }
  database.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
  database.pragma("foreign_keys = ON");
  database.pragma("synchronous = NORMAL");
  const db = new Kysely<EntityTables>({
    dialect: new SqliteDialect({ database: withStatementCache(database) }),
  });
  return {
    db,
    dialect: "sqlite",
    async close() {
      await db.destroy();
      // Kysely closes the file only if it ever ran a query.
      if (database.open) database.close();
    },
  };
}
