import type { FunctionRegistry, FunctionRunner } from "@svc/functions";
import { type LiveQueryRunner, type ReadTracker, SyncError } from "@svc/sync";

/**
 * Live queries over the app's function files: only `query` functions may
 * be subscribed to (`NOT_A_QUERY` otherwise; an unknown name is the
 * runner's `FUNCTION_NOT_FOUND`), run by `runner`, whose store is the
 * tracker's, so each run answers what it read.
 */
export function liveQueryRunner(
  functions: FunctionRegistry,
  runner: FunctionRunner,
  tracker: ReadTracker,
): LiveQueryRunner {
  return {
    run(name, args, auth) {
      const definition = functions.get(name);
      if (definition !== undefined && (definition as { type?: unknown }).type !== "query") {
        return Promise.reject(new SyncError("NOT_A_QUERY"));
      }
      return tracker.track(() => runner.run(name, args, auth));
    },
  };
}
