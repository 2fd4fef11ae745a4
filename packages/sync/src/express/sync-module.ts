import type { SvcModule, SvcRuntime } from "@svc/store";
import type { IRouter } from "express";
import type { ChangeLog } from "../change-log.js";
import { createSync, type Sync, type SyncOptions } from "../create-sync.js";
import { startPruning } from "../prune-timer.js";
import { syncMigrations } from "../tables.js";
import { createSyncRouter } from "./sync-router.js";

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
  const sync = createSync({ ...settings, store: runtime.store, log: changeLog });
  let stopPruning = (): void => undefined;
  return {
    name: "@svc/sync",
    sync,
    migrations: [syncMigrations()],
    routes: (app) => app.use(createSyncRouter(sync)),
    async start() {
      await changeLog.ready();
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
