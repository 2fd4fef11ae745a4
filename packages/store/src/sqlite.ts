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
  /**
   * Whether reads outside a transaction get a read-only connection of their
   * own (`readDb`), so they never wait for a write transaction that holds
   * the writing connection across the awaits of a mutation. Default true;
   * ignored for `:memory:` (and `""`), which always keeps one connection.
   */
  readonly readConnection?: boolean;
}

function isInMemory(file: string): boolean {
  return file === ":memory:" || file === "";
}

function checkAttachNames(attach: Readonly<Record<string, string>>): void {
  for (const schema of Object.keys(attach)) {
    if (!ATTACH_NAME.test(schema)) throw new TypeError(`openSqlite: bad attach name ${schema}`);
  }
}

function attachDatabase(database: Database.Database, schema: string, file: string): void {
  // The file name is a bound parameter; the schema name was checked before.
  database.prepare(`attach database ? as ${schema}`).run(file);
}

/**
 * The read connection: read-only, with the writer's attached files (an
 * attached `:memory:` database exists only on the writer and is left out).
 * Opened on the first read, after the writer created the files and
 * switched them to WAL; a store that never reads never opens it.
 */
function openReadConnection(
  path: string,
  attach: Readonly<Record<string, string>>,
): Database.Database {
  const database = new Database(path, { readonly: true, fileMustExist: true });
  try {
    for (const [schema, file] of Object.entries(attach)) {
      if (!isInMemory(file)) attachDatabase(database, schema, file);
    }
    database.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
  } catch (error) {
    database.close();
    throw error;
  }
  return database;
}

function kyselyOver(
  database: SqliteDatabase | (() => Promise<SqliteDatabase>),
): Kysely<EntityTables> {
  return new Kysely<EntityTables>({ dialect: new SqliteDialect({ database }) });
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
 * Two connections to a file: `db` writes (transactions, migrations, the
 * framework packages' own tables) and `readDb`, read-only, serves the
 * store's reads outside a transaction. SQLite runs one statement at a time
 * per process either way; what the second connection buys is that a read
 * never queues behind a write transaction held open across a mutation's
 * awaits. In WAL mode it reads the last committed state, so a read issued
 * after a commit sees it. `:memory:` has a single connection (`readDb` is `db`).
 *
 * @example
 * const { db, readDb, dialect, close } = openSqlite(".svc/data.db", { attach: { auth: ":memory:" } });
 * const store = createStore({ db, readDb, dialect, manifest });
 */
export function openSqlite(path: string, options: SqliteOptions = {}): StoreDatabase<"sqlite"> {
  const attach = options.attach ?? {};
  checkAttachNames(attach);
  const database = new Database(path);
  database.pragma("journal_mode = WAL");
  for (const [schema, file] of Object.entries(attach)) {
    attachDatabase(database, schema, file);
    if (!isInMemory(file)) database.pragma(`${schema}.journal_mode = WAL`);
  }
  database.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
  database.pragma("foreign_keys = ON");
  database.pragma("synchronous = NORMAL");
  const db = kyselyOver(withStatementCache(database));
  // Kysely opens it on the first read and closes it on destroy (only then).
  const readDb =
    options.readConnection === false || isInMemory(path)
      ? db
      : kyselyOver(async () => withStatementCache(openReadConnection(path, attach)));
  return {
    db,
    readDb,
    dialect: "sqlite",
    async close() {
      // The reader first: the writer, closing last, checkpoints and removes the WAL.
      if (readDb !== db) await readDb.destroy();
      await db.destroy();
      // Kysely closes the writer's file only if it ever ran a query on it.
      if (database.open) database.close();
    },
  };
}
