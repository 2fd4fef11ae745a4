import { AsyncLocalStorage } from "node:async_hooks";
import { type AuthContext, adminAuth, type Manifest, planTables } from "@svc/schema";
import { type Kysely, sql } from "kysely";
import { createAccessControl } from "./access.js";
import { type ChangeBus, createMemoryChangeBus } from "./change-bus.js";
import { createCursorCodec } from "./cursor.js";
import type { EntityTables, StoreDialect } from "./database.js";
import { dialectFor } from "./dialect/dialect-for.js";
import { databaseError } from "./driver-errors.js";
import { buildEntityModels } from "./entity-model.js";
import { nameForMessage, StoreError } from "./errors.js";
import { checkSizeOption, DEFAULT_MAX_FIELD_BYTES, DEFAULT_MAX_ROW_BYTES } from "./field-size.js";
import { createGroupCommit, type GroupWork } from "./group-commit.js";
import { selectPageJSON } from "./list-json.js";
import { migrateDatabase } from "./migrate.js";
import { checkId } from "./prepare-write.js";
import {
  authorize,
  countRows,
  findModel,
  type OperationContext,
  selectPage,
  selectRow,
} from "./read-ops.js";
import { probeStorage } from "./storage-probe.js";
import { withSpan } from "./tracing.js";
import type {
  BeforeDeleteHook,
  ChangeEvent,
  EntityReader,
  EntityWriter,
  FileReferenceCheck,
  FrameworkTransaction,
  Store,
} from "./types.js";
import { deleteRow, insertRow, updateRow, type WriteContext } from "./write-ops.js";

/** Options of `createStore`. */
export interface CreateStoreOptions {
  /** The kysely instance from `openSqlite` or `openPostgres` (or one built the same way). */
  readonly db: Kysely<EntityTables>;
  /**
   * Where reads outside a transaction go (`reader`, `systemReader`, and
   * `ping` checks it too): the `readDb` of `openSqlite` or `openPostgres`.
   * It must reach the same database as `db` and see each commit once the
   * commit has returned. `close` destroys it with `db`. Default: `db`.
   */
  readonly readDb?: Kysely<EntityTables>;
  readonly dialect: StoreDialect;
  /** A validated manifest (`parseManifest`); it is not checked again. */
  readonly manifest: Manifest;
  /** The time source for `defaultNow` fields. Default: `() => new Date()`. */
  readonly clock?: () => Date;
  /**
   * Called when a change listener throws; the write has committed and the
   * caller is not affected. Default: logs to `console.error`. Used by the
   * default bus only (a given `changeBus` reports its own listeners' errors).
   */
  readonly onListenerError?: (error: unknown) => void;
  /**
   * Where committed changes go (`onChange` subscribes to it). Default: the
   * in-process bus, `createMemoryChangeBus({ onListenerError })`. @svc/sync's
   * change log is the durable one: it records inside each write's transaction.
   */
  readonly changeBus?: ChangeBus;
  /**
   * SQLite only: run the transactions that reach the writer in the same
   * event-loop turn inside one database transaction, each in a savepoint,
   * with one commit (see `createGroupCommit`). A transaction still fails
   * alone and its promise still settles only after its commit; what changes
   * is that concurrent writes share the commit's cost. Default true;
   * ignored on Postgres, whose connections commit in parallel.
   */
  readonly groupCommit?: boolean;
  /** Called with the number of transactions in each SQLite commit (tests, metrics). */
  readonly onCommit?: (transactions: number) => void;
  /**
   * The largest value of a string or json field that has no `maxBytes` of
   * its own, in bytes of UTF-8 (json: of its JSON text). A larger one is
   * refused with 413 `FIELD_TOO_LARGE`, on insert and update. Default 64 KiB.
   */
  readonly maxFieldBytes?: number;
  /**
   * The largest row, counting its string and json values together, in
   * bytes; a larger insert or update is refused with 413 `ROW_TOO_LARGE`.
   * Default 1 MiB.
   */
  readonly maxRowBytes?: number;
  /**
   * The secret page cursors are signed with (HMAC-SHA256 under a key derived
   * from it): a cursor that was edited, truncated or signed with another
   * secret answers `INVALID_CURSOR`. Give every server of one database the
   * same secret so they accept each other's cursors. At least 16 bytes.
   * Default: a random secret per process (cursors then do not survive a
   * restart).
   */
  readonly cursorSecret?: string | Uint8Array;
}

/** The cursor secret, checked: long enough to key an HMAC. */
function checkCursorSecret(
  secret: string | Uint8Array | undefined,
): string | Uint8Array | undefined {
  if (secret === undefined) return undefined;
  const bytes = typeof secret === "string" ? Buffer.byteLength(secret) : secret.byteLength;
  if (bytes < 16) {
    throw new StoreError("INVALID_OPTION", {
      message: "createStore: cursorSecret must be at least 16 bytes.",
    });
  }
  return secret;
}

/**
 * Deletes every entity row and, in the same transaction, lets a durable bus
 * void its log (`recordReset`).
 */
async function truncateTables(
  db: Kysely<EntityTables>,
  dialect: StoreDialect,
  manifest: Manifest,
  bus: ChangeBus,
): Promise<void> {
  const tables = manifest.entities.map((entity) => entity.name);
  const recordReset = bus.recordReset?.bind(bus);
  if (tables.length === 0 && recordReset === undefined) return;
  await db.transaction().execute(async (trx) => {
    if (tables.length > 0) {
      await dialectFor(dialect).emptyTables(trx, tables);
    }
    if (recordReset !== undefined) await recordReset(trx);
  });
}

/** Runs `fn`, turning unexpected (driver) errors into `DATABASE_ERROR`. */
async function guarded<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (error) {
    throw databaseError(error);
  }
}

/**
 * `guarded` inside a `store.<kind>` span naming the entity (only one the
 * manifest declares: a caller's made-up name is not copied into traces).
 */
function statement<T>(
  ctx: OperationContext,
  kind: "get" | "query" | "count" | "insert" | "update" | "delete",
  entity: string,
  fn: () => Promise<T>,
): Promise<T> {
  const attributes = {
    "db.system.name": dialectFor(ctx.dialect).systemName,
    "svc.entity": ctx.models.has(entity) ? entity : "unknown",
  };
  return withSpan(`store.${kind}`, attributes, () => guarded(fn));
}

function createReader(ctx: OperationContext, assertOpen: () => void): EntityReader {
  return {
    get: (entity, id) =>
      statement(ctx, "get", entity, async () => {
        assertOpen();
        const model = findModel(ctx, entity);
        const filter = authorize(ctx, model, "read");
        return selectRow(ctx, model, checkId(id), filter);
      }),
    query: (entity, options) =>
      statement(ctx, "query", entity, async () => {
        assertOpen();
        const model = findModel(ctx, entity);
        return selectPage(ctx, model, options, authorize(ctx, model, "read"));
      }),
  };
}

/**
 * One transaction's writer. Its operations run one at a time, in call order,
 * even when the caller does not await between them: a Postgres connection
 * runs one statement at a time, and the savepoints around writes must not
 * interleave.
 */
function createWriter(ctx: WriteContext, isOpen: () => boolean): EntityWriter {
  let tail: Promise<unknown> = Promise.resolve();
  const assertOpen = (): void => {
    if (!isOpen()) throw new StoreError("TRANSACTION_FINISHED");
  };
  const serial = <T>(fn: () => Promise<T>): Promise<T> => {
    const run = tail.then(fn);
    tail = run.catch(() => undefined);
    return run;
  };
  const reader = createReader(ctx, assertOpen);
  return {
    get: (entity, id) => serial(() => reader.get(entity, id)),
    query: (entity, options) => serial(() => reader.query(entity, options)),
    insert: (entity, data) =>
      serial(() =>
        statement(ctx, "insert", entity, async () => {
          assertOpen();
          return insertRow(ctx, entity, data);
        }),
      ),
    update: (entity, id, patch) =>
      serial(() =>
        statement(ctx, "update", entity, async () => {
          assertOpen();
          return updateRow(ctx, entity, id, patch);
        }),
      ),
    delete: (entity, id) =>
      serial(() =>
        statement(ctx, "delete", entity, async () => {
          assertOpen();
          return deleteRow(ctx, entity, id);
        }),
      ),
  };
}

/**
 * Creates the entity store for one manifest over one database. Everything
 * per-entity (columns, codecs, constraints, access rules) is computed here,
 * once; call `migrate()` before the first read or write.
 *
 * Writes go through `db`, in transactions; reads outside a transaction go
 * through `readDb` (the read pool), so they never wait for a transaction.
 *
 * @example
 * const database = openSqlite(".svc/data.db");
 * const store = createStore({ ...database, manifest });
 * await store.migrate();
 * const todo = await store.transaction(auth, (tx) => tx.insert("Todo", { title: "Ship" }));
 */
export function createStore(options: CreateStoreOptions): Store {
  const { db, dialect, manifest } = options;
  const readDb = options.readDb ?? db;
  const clock = options.clock ?? (() => new Date());
  const bus =
    options.changeBus ??
    createMemoryChangeBus(
      options.onListenerError === undefined ? {} : { onListenerError: options.onListenerError },
    );
  const plan = planTables(manifest);
  const models = buildEntityModels(manifest, plan, dialect, {
    maxFieldBytes: checkSizeOption("maxFieldBytes", options.maxFieldBytes, DEFAULT_MAX_FIELD_BYTES),
    maxRowBytes: checkSizeOption("maxRowBytes", options.maxRowBytes, DEFAULT_MAX_ROW_BYTES),
  });
  const cursors = createCursorCodec(checkCursorSecret(options.cursorSecret));
  const access = createAccessControl(manifest);
  const deleteHooks = new Map<string, BeforeDeleteHook[]>();
  let fileCheck: FileReferenceCheck | undefined;
  // The same millisecond formats to the same text: under load many writes
  // share one, and formatting is most of what asking the clock costs.
  let lastNowMs = Number.NaN;
  let lastNowText = "";
  const now = (): string => {
    const date = clock();
    const ms = date.getTime();
    if (ms !== lastNowMs) {
      lastNowMs = ms;
      lastNowText = date.toISOString();
    }
    return lastNowText;
  };
  // Marks code running inside one of this store's transactions. On SQLite the
  // transaction holds the writer connection, so a transaction started there
  // on the store itself would wait forever (a read too, in memory), and a
  // read through the read pool would miss the transaction's own writes;
  // both dialects refuse both.
  const insideTransaction = new AsyncLocalStorage<{ open: boolean; db?: Kysely<EntityTables> }>();
  const assertNotNested = (): void => {
    if (insideTransaction.getStore()?.open === true) throw new StoreError("NESTED_TRANSACTION");
  };
  const inTransaction: <T>(work: GroupWork<T>) => Promise<T> =
    // One writer at a time: commits are grouped instead of queued one by one.
    !dialectFor(dialect).concurrentWriters && options.groupCommit !== false
      ? createGroupCommit(db, options.onCommit === undefined ? {} : { onCommit: options.onCommit })
          .run
      : (work) => db.transaction().execute(work);

  const transactionAttributes = {
    "db.system.name": dialectFor(dialect).systemName,
  };
  /** One write transaction, inside a `store.transaction` span (its statements are children). */
  function runTransaction<T>(
    auth: AuthContext,
    work: (tx: FrameworkTransaction) => Promise<T>,
  ): Promise<T> {
    return withSpan("store.transaction", transactionAttributes, () =>
      runTransactionUntraced(auth, work),
    );
  }

  async function runTransactionUntraced<T>(
    auth: AuthContext,
    work: (tx: FrameworkTransaction) => Promise<T>,
  ): Promise<T> {
    assertNotNested();
    const events: ChangeEvent[] = [];
    const record = bus.record?.bind(bus);
    const state: { open: boolean; db?: Kysely<EntityTables> } = { open: true };
    const thrown: { byWork?: unknown } = {};
    let result: T;
    try {
      result = await insideTransaction.run(state, () =>
        inTransaction(async (trx) => {
          state.db = trx;
          const deleting = new Set<string>();
          const isOpen = (): boolean => state.open;
          const contextFor = (caller: AuthContext): WriteContext => ({
            db: trx,
            dialect,
            models,
            access,
            auth: caller,
            cursors,
            events,
            now,
            deleting,
            beforeDelete: (entity) => deleteHooks.get(entity) ?? [],
            fileCheck: () => fileCheck,
            systemWriter: () => createWriter(contextFor(adminAuth), isOpen),
          });
          const ctx = contextFor(auth);
          let value: T;
          try {
            value = await work({ entities: createWriter(ctx, isOpen), db: trx });
          } catch (error) {
            thrown.byWork = error;
            throw error;
          } finally {
            state.open = false;
          }
          // The outbox: a durable bus records in this transaction, so the
          // log holds exactly the committed writes.
          if (record !== undefined && events.length > 0) {
            Object.freeze(events);
            // Nothing may run between this and the commit: on Postgres the
            // bus's last statement carries the commit (COMMIT_WITH_THIS).
            await record(trx, events, { last: true });
          }
          return value;
        }),
      );
    } catch (error) {
      // The caller's own error passes through; a failed begin or commit becomes a 500.
      if ("byWork" in thrown && thrown.byWork === error) throw error;
      throw databaseError(error);
    }
    if (events.length > 0) bus.publish(Object.freeze(events));
    return result;
  }

  return {
    manifest,
    dialect,
    migrate: (migrateOptions = {}) =>
      migrateDatabase({ db, dialect, plan, now: clock(), packages: migrateOptions.packages }),
    reader: (auth: AuthContext) =>
      createReader({ db: readDb, dialect, models, access, auth, cursors }, assertNotNested),
    queryJSON: (auth, entity, options) => {
      const ctx: OperationContext = { db: readDb, dialect, models, access, auth, cursors };
      return statement(ctx, "query", entity, async () => {
        assertNotNested();
        const model = findModel(ctx, entity);
        return selectPageJSON(ctx, model, options, authorize(ctx, model, "read"));
      });
    },
    count: (auth, entity, options) => {
      const ctx: OperationContext = { db: readDb, dialect, models, access, auth, cursors };
      return statement(ctx, "count", entity, async () => {
        assertNotNested();
        const model = findModel(ctx, entity);
        return countRows(ctx, model, options, authorize(ctx, model, "read"));
      });
    },
    systemReader: () =>
      createReader(
        {
          // Inside a transaction, read through it: the transaction's own
          // writes must be visible (and on SQLite in memory it holds the only
          // connection). Outside one, through the read pool.
          get db() {
            const state = insideTransaction.getStore();
            return state?.open === true && state.db !== undefined ? state.db : readDb;
          },
          dialect,
          models,
          access,
          auth: adminAuth,
          cursors,
        },
        () => undefined,
      ),
    transaction: (auth, work) => runTransaction(auth, (tx) => work(tx.entities)),
    frameworkTransaction: runTransaction,
    onBeforeDelete(entity: string, hook: BeforeDeleteHook): () => void {
      if (!models.has(entity)) {
        throw new StoreError("ENTITY_NOT_FOUND", {
          message: `A before-delete hook names ${nameForMessage(entity)}, which the manifest does not declare.`,
        });
      }
      deleteHooks.set(entity, [...(deleteHooks.get(entity) ?? []), hook]);
      return () => {
        deleteHooks.set(
          entity,
          (deleteHooks.get(entity) ?? []).filter((registered) => registered !== hook),
        );
      };
    },
    onFileReference(check: FileReferenceCheck): () => void {
      fileCheck = check;
      return () => {
        if (fileCheck === check) fileCheck = undefined;
      };
    },
    onChange: (listener) => bus.subscribe(listener),
    // Ready only when both the writer and the read pool answer.
    ping: () =>
      guarded(async () => {
        await Promise.all(
          (readDb === db ? [db] : [db, readDb]).map((target) => sql`select 1`.execute(target)),
        );
      }),
    // A driver's own full error (a Postgres probe write) becomes STORAGE_FULL in `guarded`.
    probeStorage: () => guarded(() => probeStorage(db, dialect)),
    truncateAll: async () => {
      await guarded(() => truncateTables(db, dialect, manifest, bus));
      bus.publishReset?.();
    },
    close: async () => {
      if (readDb !== db) await readDb.destroy();
      await db.destroy();
    },
  };
}
