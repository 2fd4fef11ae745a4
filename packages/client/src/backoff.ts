/** The timer functions the live transports schedule reconnects with; injectable for tests. */
export interface Timers {
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

/** The platform's timers. */
export const platformTimers: Timers = {
  setTimeout: (callback, ms) => globalThis.setTimeout(callback, ms),
  clearTimeout: (handle) => globalThis.clearTimeout(handle as ReturnType<typeof setTimeout>),
};

/** Options of `backoffDelay`. */
export interface BackoffOptions {
  /** The first ceiling, in milliseconds. Default 250. */
  readonly baseMs?: number;
  /** The largest ceiling, in milliseconds. Default 30 000. */
  readonly capMs?: number;
  /** A number in [0, 1). Default `Math.random`. */
  readonly random?: () => number;
}

/** Default first ceiling of the reconnect delay: 250 ms. */
export const BACKOFF_BASE_MS = 250;
/** Default largest reconnect delay: 30 s. */
export const BACKOFF_CAP_MS = 30_000;

/**
 * The delay before reconnect attempt `attempt` (0 for the first retry):
 * "full jitter" exponential backoff, a uniformly random delay between 0
 * and `min(cap, base * 2^attempt)`, so clients dropped together do not
 * come back together.
 *
 * @example
 * backoffDelay(3, { random: () => 0.5 }); // 1000 (half of 250 * 2^3)
 */
export function backoffDelay(attempt: number, options: BackoffOptions = {}): number {
  const base = options.baseMs ?? BACKOFF_BASE_MS;
  const cap = options.capMs ?? BACKOFF_CAP_MS;
  const random = options.random ?? Math.random;
  // 2^attempt overflows to Infinity long after the cap is reached; min() keeps it finite.
  const ceiling = Math.min(cap, base * 2 ** Math.max(0, attempt));
  return Math.floor(random() * ceiling);
}
