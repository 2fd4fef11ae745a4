import type { ChangeLog } from "./change-log.js";

/** Prune interval when none is given: one minute. */
const DEFAULT_INTERVAL_MS = 60_000;

/**
 * Prunes `log` every `intervalMs` (default a minute) on an unref'd timer
 * (it never keeps the process alive); one prune at a time. Returns the
 * function that stops it.
 *
 * @example
 * const stop = startPruning(log, { onError: (error) => console.error(error) });
 * // at shutdown:
 * stop();
 */
export function startPruning(
  log: Pick<ChangeLog, "prune">,
  options: { readonly intervalMs?: number; readonly onError?: (error: unknown) => void } = {},
): () => void {
  let running = false;
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    log
      .prune()
      .catch((error: unknown) => options.onError?.(error))
      .finally(() => {
        running = false;
      });
  }, options.intervalMs ?? DEFAULT_INTERVAL_MS);
  timer.unref();
  return () => clearInterval(timer);
}
