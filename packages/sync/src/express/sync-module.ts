import type { SvcModule, SvcRuntime } from "@svc/store";
import type { IRouter } from "express";
import type { ChangeLog } from "../change-log.js";
import { createSync, type Sync, type SyncOptions } from "../create-sync.js";
import { startPruning } from "../prune-timer.js";
import { syncMigrations } from "../tables.js";
import { registerSyncRoutes } from "./sync-router.js";

/** What `syncModule` needs beside the runtime. */
export interface SyncModuleOptions extends Omit<SyncOptions, "store" | "log"> {
  /**
   * The durable change log, which must be the runtime store's change bus
   * (`createStore({ changeBus: changeLog })`): it is made before the store.
   */
  readonly changeLog: ChangeLog;
  /**
   * Background writes that failed (pruning the log); the log gets them
   * either way. svc's server also marks the storage full on a full disk.
   */
  readonly onBackgroundError?: (error: unknown) => void;
}

/** Sync as a module, plus the core the live transports serve. */
export interface SyncModule extends SvcModule<IRouter> {
  /**
   * The core, made at `start()`: it follows the change log from the moment
   * it exists, and on Postgres following reads the log's table, which the
   * composer migrates first. Reading it before `start()` throws.
   */
  readonly sync: Sync;
}

/**
 * Sync built from the shared runtime: the change log's table, `GET
 * /api/sync/pull`, and the log's background work: on Postgres, listening to
 * the other servers' commits (ready before anything is served), and pruning
 * past the retention everywhere.
 */
export function syncModule(runtime: SvcRuntime, options: SyncModuleOptions): SyncModule {
  const { changeLog, onBackgroundError, ...settings } = options;
  let sync: Sync | undefined;
  const started = (): Sync => {
    if (sync === undefined) throw new Error("@svc/sync: the sync module is not started yet");
    return sync;
  };
  let stopPruning = (): void => undefined;
  return {
    name: "@svc/sync",
    get sync() {
      return started();
    },
    migrations: [syncMigrations()],
    // Resolved per request, so the routes may be registered before `start()`.
    routes: (app) => registerSyncRoutes(app, started),
    async start() {
      await changeLog.ready();
      sync ??= createSync({ ...settings, store: runtime.store, log: changeLog });
      stopPruning = startPruning(changeLog, {
        onError: (error) => {
          onBackgroundError?.(error);
          runtime.log.error({ err: error }, "sync: pruning the change log failed");
        },
      });
    },
    async close() {
      stopPruning();
      await changeLog.close();
    },
  };
}
