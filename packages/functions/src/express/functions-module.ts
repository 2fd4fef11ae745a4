import { getCaller } from "@svc/schema/http";
import type { SvcModule, SvcRuntime } from "@svc/store";
import type { IRouter } from "express";
import {
  createFunctionRunner,
  type FunctionRunner,
  type FunctionRunnerOptions,
} from "../create-function-runner.js";
import { registerFunctionRoutes } from "./function-router.js";

/** What `functionsModule` needs beside the runtime. */
export interface FunctionsModuleOptions
  extends Omit<FunctionRunnerOptions, "store" | "now" | "log" | "logError"> {
  /**
   * The store the functions run on; default the runtime's. svc's server
   * passes sync's read-tracking view of it, which records what a live
   * query read.
   */
  readonly store?: FunctionRunnerOptions["store"];
  /** The largest JSON body of a call, in bytes (413 `PAYLOAD_TOO_LARGE` beyond). Default 1 MiB. */
  readonly bodyLimitBytes?: number;
}

/** The server functions as a module, plus the runner (jobs, live queries, rooms, billing hooks). */
export interface FunctionsModule extends SvcModule<IRouter> {
  readonly runner: FunctionRunner;
}

/**
 * The app's functions built from the shared runtime: `POST /api/fn/<name>`,
 * with `ctx.log` and failures after a commit in the runtime's log. Pass the
 * store module's `idempotency` so function calls and entity writes share
 * one `Idempotency-Key` record.
 */
export function functionsModule(
  runtime: SvcRuntime,
  options: FunctionsModuleOptions,
): FunctionsModule {
  const { bodyLimitBytes, store, ...settings } = options;
  const runner = createFunctionRunner({
    ...settings,
    store: store ?? runtime.store,
    now: runtime.now,
    log: runtime.log,
    logError: (message, error) => runtime.log.error({ err: error }, message),
  });
  return {
    name: "@svc/functions",
    runner,
    routes: (app) =>
      registerFunctionRoutes(app, runner, {
        caller: getCaller,
        ...(bodyLimitBytes !== undefined && { bodyLimitBytes }),
      }),
  };
}
