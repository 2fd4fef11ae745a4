import { getCaller } from "@svc/schema/http";
import type { IRouter } from "express";
import { idempotencyMigrations } from "../idempotency.js";
import { createIdempotency, type Idempotency } from "../idempotent-writes.js";
import type { SvcModule, SvcRuntime } from "../module.js";
import { registerEntityRoutes } from "./entity-router.js";

/** What `storeModule` needs beside the runtime. */
export interface StoreModuleOptions {
  /** The largest JSON body of a write, in bytes (413 `PAYLOAD_TOO_LARGE` beyond). Default 1 MiB. */
  readonly bodyLimitBytes?: number;
}

/** The store's HTTP side as a module, plus the record of idempotent writes other modules share. */
export interface StoreModule extends SvcModule<IRouter> {
  /** The `Idempotency-Key` record; @svc/functions' module writes through the same one. */
  readonly idempotency: Idempotency;
}

/**
 * The runtime's store as a module: the entity routes and `/api/batch`, the
 * idempotency table, and the dev reset (every entity row). The store itself
 * is the runtime's: whoever opened it closes it, after every module.
 */
export function storeModule(runtime: SvcRuntime, options: StoreModuleOptions = {}): StoreModule {
  const idempotency = createIdempotency(runtime.store, {
    now: runtime.now,
    onError: (error) => runtime.log.error({ err: error }, "pruning idempotency keys failed"),
  });
  return {
    name: "@svc/store",
    idempotency,
    migrations: [idempotencyMigrations()],
    routes: (app) =>
      registerEntityRoutes(app, runtime.store, {
        caller: getCaller,
        idempotency,
        ...(options.bodyLimitBytes !== undefined && { bodyLimitBytes: options.bodyLimitBytes }),
      }),
    reset: () => runtime.store.truncateAll(),
  };
}
