import { mkdir } from "node:fs/promises";
import { dirname, resolve } from "node:path";
import type { Manifest } from "@svc/schema";
import { createStore, type ModuleLog, type SvcRuntime } from "@svc/store";
import { createPgSignal, openPostgres, type PgSignal } from "@svc/store/pg";
import { openSqlite } from "@svc/store/sqlite";
import { type ChangeLog, type ChangeLogObserver, createChangeLog } from "@svc/sync";
import type { ServerConfig } from "./config.js";
import { sqliteFiles } from "./storage-paths.js";

/** The attached SQLite database holding auth-core's tables (`SVC_SESSION_DB`). */
export const AUTH_SCHEMA = "auth";

/** The attached SQLite database holding the job queue (`SVC_JOBS_DB`). */
export const JOBS_SCHEMA = "jobs";

/** The runtime every module is built from, and what only the server itself needs of the database. */
export interface ServerRuntime {
  readonly runtime: SvcRuntime;
  /** The store's change bus: the durable change log that sync serves and tails. */
  readonly changeLog: ChangeLog;
  /** Where auth-core's and the job queue's tables live on SQLite (attached databases); undefined on Postgres. */
  readonly schemas: { readonly auth: string | undefined; readonly jobs: string | undefined };
  /** True for an in-memory database (the dev reset route is on). */
  readonly inMemory: boolean;
  /**
   * On Postgres, the bell auth-core rings after a revocation and hears from
   * the other servers (one LISTEN connection); undefined on SQLite.
   */
  readonly revocationSignal: PgSignal | undefined;
  /** Closes the change log and the database (after every module is closed). */
  close(): Promise<void>;
}

/** What `openRuntime` needs beside the configuration. */
export interface OpenRuntimeOptions {
  readonly manifest: Manifest;
  readonly manifestDir: string;
  /** The deployment's secret: `SVC_AUTH_SECRET`, else the admin token (HKDF keeps derived keys apart). */
  readonly secret: string;
  readonly log: ModuleLog;
  readonly now: () => number;
  readonly changeLogObserver?: ChangeLogObserver;
  readonly onCommit?: (changes: number) => void;
}

/**
 * Opens the application database. On Postgres auth-core's tables and the job
 * queue live in it (every server shares them). On SQLite they live in
 * `SVC_SESSION_DB` (in memory when unset) and `SVC_JOBS_DB`, attached to the
 * application connection so one transaction spans them: a job scheduled in
 * a mutation commits with it.
 */
async function openDatabase(config: ServerConfig, manifestDir: string) {
  if (config.databaseURL !== undefined) {
    const database = openPostgres(config.databaseURL);
    return { ...database, schemas: { auth: undefined, jobs: undefined }, inMemory: false };
  }
  // The same paths `svc backup` and `svc restore` use.
  const files = sqliteFiles(config, manifestDir);
  for (const path of [files.app, files.sessions, files.jobs]) {
    if (path !== ":memory:") await mkdir(dirname(resolve(path)), { recursive: true });
  }
  const database = openSqlite(files.app, {
    attach: { [AUTH_SCHEMA]: files.sessions, [JOBS_SCHEMA]: files.jobs },
  });
  return {
    ...database,
    schemas: { auth: AUTH_SCHEMA, jobs: JOBS_SCHEMA },
    inMemory: files.app === ":memory:",
  };
}

/**
 * Opens the database, the change log and the store over them: the runtime
 * of every module. Compiles the manifest's policies too, so a bad one stops
 * the boot here with nothing left open.
 */
export async function openRuntime(
  config: ServerConfig,
  options: OpenRuntimeOptions,
): Promise<ServerRuntime> {
  const database = await openDatabase(config, options.manifestDir);
  // Every write records its changes in its own transaction; on Postgres
  // every server delivers every server's commits (LISTEN/NOTIFY).
  const changeLog = createChangeLog({
    db: database.db,
    dialect: database.dialect,
    retention: config.syncRetention,
    now: options.now,
    ...(options.changeLogObserver !== undefined && { observer: options.changeLogObserver }),
    ...(config.databaseURL !== undefined && {
      // Other servers' commits are read only while a live client is
      // connected (the live callers hold `follow()`, see server-live.ts).
      listen: { connectionString: config.databaseURL, onDemand: true },
      onError: (error: unknown) =>
        options.log.error({ err: error }, "sync: change log listener failed"),
    }),
  });
  try {
    const store = createStore({
      db: database.db,
      // Reads outside a transaction: the read pool (a read-only connection on a SQLite file).
      readDb: database.readDb,
      dialect: database.dialect,
      manifest: options.manifest,
      changeBus: changeLog,
      ...config.storeLimits,
      // Page cursors are signed with a key derived from the deployment's
      // secret, so every server of one database accepts the others' cursors.
      cursorSecret: options.secret,
      ...(options.onCommit !== undefined && { onCommit: options.onCommit }),
    });
    const revocationSignal =
      config.databaseURL === undefined
        ? undefined
        : createPgSignal({
            connectionString: config.databaseURL,
            channel: "svc_auth_revocations",
            applicationName: "svc-auth-signal",
            onError: (error: unknown) =>
              options.log.error({ err: error }, "auth: revocation signal connection failed"),
          });
    return {
      runtime: {
        db: database.db,
        dialect: database.dialect,
        store,
        now: options.now,
        secret: options.secret,
        log: options.log,
        devMode: config.devMode,
      },
      changeLog,
      schemas: database.schemas,
      inMemory: database.inMemory,
      revocationSignal,
      async close() {
        await revocationSignal?.close();
        await changeLog.close();
        await store.close();
      },
    };
  } catch (error) {
    await changeLog.close();
    await database.close();
    throw error;
  }
}
