/** How failed attempts are spaced. */
export interface BackoffOptions {
  /** The first retry's upper bound, in ms. Default 1000. */
  readonly baseMs?: number;
  /** The largest delay, in ms. Default one hour. */
  readonly maxMs?: number;
}

/**
 * Exponential backoff with full jitter (AWS's "full jitter"): after the
 * `attempt`-th failure (1-based) wait a uniformly random time in
 * `[0, min(maxMs, baseMs * 2^(attempt - 1))]`, so many jobs failing together
 * do not retry together.
 */
export function backoffDelay(
  attempt: number,
  random: () => number,
  options: BackoffOptions = {},
): number {
  const base = options.baseMs ?? 1000;
  const max = options.maxMs ?? 3_600_000;
  const ceiling = Math.min(max, base * 2 ** Math.max(0, Math.min(attempt - 1, 40)));
  return Math.floor(random() * ceiling);
}
