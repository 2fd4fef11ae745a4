import { AsyncLocalStorage } from "node:async_hooks";

/**
 * The fields every log line made inside a unit of work carries: a
 * request's `requestId`, a job's `jobId` and `job`. Kept as the exact
 * object the logger merges into each line, so a line costs no copy.
 */
export type LogContext = Readonly<Record<string, string>>;

const storage = new AsyncLocalStorage<LogContext>();

/** The fields of the unit of work running now (request or job); undefined outside one. */
export function currentRequest(): (LogContext & { readonly requestId?: string }) | undefined {
  return storage.getStore();
}

/** Runs `work` with `context` as the fields of every log line made inside it, awaited or not. */
export function runWithLogContext<T>(context: LogContext, work: () => T): T {
  return storage.run(context, work);
}
