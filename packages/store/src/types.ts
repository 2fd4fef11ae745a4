import type { AuthContext, Manifest } from "@svc/schema";
import type { Kysely } from "kysely";
import type { EntityTables, StoreDialect } from "./database.js";
import type { PackageMigrations } from "./package-migrations.js";

/**
 * A stored record as the API shows it: `id` plus the entity's fields, with
 * JSON-ready values (datetime as an ISO 8601 UTC string, bool as a boolean,
 * json as the parsed value, a missing optional field as null).
 */
export type Row = { readonly id: string } & Readonly<Record<string, unknown>>;

/** Values for an insert (`id` optional) or the changed fields of an update. */
export type RowInput = Readonly<Record<string, unknown>>;

/** The options of a list read. */
export interface QueryOptions {
  /** Equality filters: field name to value; `null` matches a missing optional field. */
  readonly where?: Readonly<Record<string, unknown>>;
  /** Sort order; rows with equal sort values are ordered by id. Default: by id ascending. */
  readonly orderBy?: { readonly field: string; readonly direction?: "asc" | "desc" };
  /** Page size, 1..1000. Default 100. */
  readonly limit?: number;
  /** The `nextCursor` of the previous page. */
  readonly cursor?: string;
}

/** Options of `Store.count`. */
export interface CountOptions {
  /** Equality filters, as `QueryOptions.where` takes them. */
  readonly where?: Readonly<Record<string, unknown>>;
  /**
   * Counts at most this many rows (1..1,000,000): a larger set answers
   * `max`, so a count never reads more. Default 100,000.
   */
  readonly max?: number;
}

/** One page of a list read. */
export interface Page {
  readonly rows: Row[];
  /** Pass as `cursor` to read the next page; null on the last page. */
  readonly nextCursor: string | null;
}

/** One page of a list read as JSON text (`Store.queryJSON`). */
export interface JSONPage {
  /** The page's rows as a JSON array: exactly `JSON.stringify(page.rows)` of the same `query`. */
  readonly json: string;
  /** Pass as `cursor` to read the next page; null on the last page. */
  readonly nextCursor: string | null;
}

/** Reads, checked against the caller's access. */
export interface EntityReader {
  /** The row with this id, or null when it does not exist or the caller may not see it. */
  get(entity: string, id: string): Promise<Row | null>;
  query(entity: string, options?: QueryOptions): Promise<Page>;
}

/** Reads and writes inside one transaction, checked against the caller's access. */
export interface EntityWriter extends EntityReader {
  /** Inserts a row and returns it as stored (id, owner and defaults filled in). */
  insert(entity: string, data: RowInput): Promise<Row>;
  /** Changes the given fields and returns the row as stored. */
  update(entity: string, id: string, patch: RowInput): Promise<Row>;
  delete(entity: string, id: string): Promise<void>;
}

/** What a committed write changed; emitted after the transaction commits. */
export interface ChangeEvent {
  readonly entity: string;
  readonly op: "insert" | "update" | "delete";
  readonly id: string;
  /** The row after the write; null for a delete. */
  readonly row: Row | null;
  /** The row before the write; null for an insert. */
  readonly previous: Row | null;
}

/**
 * Receives each committed transaction's events as one batch, in write order.
 * A listener that throws does not affect the writer (see `onListenerError`).
 */
export type ChangeListener<TEvent extends ChangeEvent = ChangeEvent> = (
  events: readonly TEvent[],
) => void;

/** The outcome of bringing the database up to the manifest. */
export interface MigrationReport {
  /** Human-readable descriptions of the additive steps applied, in order. */
  readonly applied: readonly string[];
}

/**
 * Runs inside the transaction of a delete, before the row goes: the place
 * to remove or detach what belongs to it (a user's data on account
 * deletion). `db` writes with the admin token's rights in the same
 * transaction; throwing aborts the delete and rolls everything back.
 */
export type BeforeDeleteHook = (input: {
  /** The row about to be deleted. */
  readonly row: Row;
  /** The same transaction, with the admin token's rights. */
  readonly db: EntityWriter;
  /** Who deletes the row. */
  readonly auth: AuthContext;
}) => Promise<void>;

/**
 * Checks one file id a write puts into a `file` field (new or changed
 * values only), inside the write's transaction. Answers null to accept, or
 * one sentence saying why not: the write then fails with
 * `INVALID_REFERENCE` and that message. Registered by @svc/files.
 */
export type FileReferenceCheck = (input: {
  /** The file id written (already checked to be 40 lowercase hex characters). */
  readonly fileId: string;
  readonly entity: string;
  readonly field: string;
  /** Who writes the row. */
  readonly auth: AuthContext;
  /** The write's transaction, for the checker's own tables. */
  readonly db: Kysely<EntityTables>;
}) => Promise<string | null>;

/** What `migrate` brings up to date besides the manifest's entities. */
export interface MigrateOptions {
  /** Framework packages' own tables, migrated in the same transaction, after the entities. */
  readonly packages?: readonly PackageMigrations[];
}

/**
 * One transaction as framework code sees it: the policy-checked entity
 * writer (writes to application entities go through it, so they are
 * validated and raise change events) and the raw kysely transaction for the
 * package's own tables. Both commit or roll back together.
 */
export interface FrameworkTransaction {
  readonly entities: EntityWriter;
  /** The transaction's kysely handle; use it only for your own package's tables. */
  readonly db: Kysely<EntityTables>;
}

/** An entity store bound to one manifest and one database. */
export interface Store {
  readonly manifest: Manifest;
  readonly dialect: StoreDialect;
  /**
   * Creates missing tables, columns and indexes, then applies the pending
   * migrations of the framework packages given, all in one transaction.
   * Throws a `SchemaError` with code `DESTRUCTIVE_MIGRATION` when the stored
   * schema cannot be reached without losing data.
   */
  migrate(options?: MigrateOptions): Promise<MigrationReport>;
  /**
   * Reads outside a transaction, through the read pool (`readDb`): they never
   * wait for a write transaction, and see every write committed before they
   * start. Inside `transaction` use its writer (this throws `NESTED_TRANSACTION`).
   */
  reader(auth: AuthContext): EntityReader;
  /**
   * `reader(auth).query(entity, options)` answered as JSON text, for a
   * server sending the page as it is: the same bytes as
   * `JSON.stringify(page.rows)`, the same cursor and the same errors. When
   * every field's encoding allows it (no float or json fields) and the page
   * is sorted by id, the database writes the text and no row objects are
   * made; otherwise the rows are read and stringified.
   */
  queryJSON(auth: AuthContext, entity: string, options?: QueryOptions): Promise<JSONPage>;
  /**
   * How many rows of `entity` the caller may see that match `where`, read
   * like `reader(auth).query` (same policies, filters and errors), through
   * the read pool. Counts at most `max` rows (default 100,000), so the
   * answer is `max` for a larger set: show it as "100,000+".
   */
  count(auth: AuthContext, entity: string, options?: CountOptions): Promise<number>;
  /**
   * Reads with the admin token's rights, for framework code that must look
   * past policies (membership checks). Inside `transaction` it reads through
   * that transaction. Never hand it to application code as its `db`.
   */
  systemReader(): EntityReader;
  /**
   * Runs `work` in one transaction: it commits when `work` resolves and rolls
   * back, writing nothing, when it throws. Change events go to listeners only
   * after commit, in write order, as one batch.
   */
  transaction<T>(auth: AuthContext, work: (db: EntityWriter) => Promise<T>): Promise<T>;
  /**
   * `transaction` for framework packages: `work` also gets the kysely
   * transaction, so a package writes its own tables (sessions, a change log,
   * jobs) atomically with entity writes. Never hand `tx.db` to application code.
   */
  frameworkTransaction<T>(
    auth: AuthContext,
    work: (tx: FrameworkTransaction) => Promise<T>,
  ): Promise<T>;
  /**
   * Registers a hook that runs before every delete of a row of `entity`,
   * whoever deletes it (a function, the entity API, account deletion).
   * Returns the unregister function.
   */
  onBeforeDelete(entity: string, hook: BeforeDeleteHook): () => void;
  /**
   * Sets the check every write runs on the file ids it puts into `file`
   * fields (one check per store; a later call replaces it). Without one, only
   * the id's shape is checked. Returns the unregister function.
   */
  onFileReference(check: FileReferenceCheck): () => void;
  /** Subscribes to committed changes; returns the unsubscribe function. */
  onChange(listener: ChangeListener): () => void;
  /** Resolves when the database answers a trivial query, on the writer and the read pool. */
  ping(): Promise<void>;
  /**
   * Resolves when the database has room for writes, else rejects with
   * `STORAGE_FULL`. On SQLite it writes nothing: every database file of
   * the connection (attached ones too) must have at least 1 MiB left, by
   * its `max_page_count` and by the free space of its file system. On
   * Postgres, whose disk the server cannot see, it writes and deletes 64
   * KiB in a table of its own (`_svc_storage_probe`, made on first use).
   * Meant for readiness checks after a write failed with `STORAGE_FULL`.
   */
  probeStorage(): Promise<void>;
  /** Deletes every row of every entity (dev-mode test reset). */
  truncateAll(): Promise<void>;
  /** Closes the writer and the read pool (`db` and `readDb`). */
  close(): Promise<void>;
}
