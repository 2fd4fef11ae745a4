import type { AccessLogEntry, CallerKind } from "../logging/access-log.js";

/** Default number of requests the studio's Logs page keeps: 10,000. */
export const DEFAULT_REQUEST_LOG_ENTRIES = 10_000;

/** One request as the Logs page keeps it: the access log line's fields, its time and a sequence number. */
export interface RequestLogEntry extends Omit<AccessLogEntry, "aborted"> {
  /** Increases by one per request recorded; names a place in the log for paging. */
  readonly seq: number;
  /** When the response ended, unix ms. */
  readonly at: number;
  /** Whether the client went away before the response was complete. */
  readonly aborted: boolean;
}

/** Which requests a query keeps. */
export interface RequestLogFilter {
  /** `2` for 2xx ... `5` for 5xx. */
  readonly statusClass?: 2 | 3 | 4 | 5 | undefined;
  readonly route?: string | undefined;
  readonly caller?: CallerKind | undefined;
  /** Only requests that ended at or after this time (unix ms). */
  readonly since?: number | undefined;
  /** Only requests recorded before this sequence number (the next page). */
  readonly before?: number | undefined;
  /** Leave out the studio's own pages and assets (`/studio...` routes). */
  readonly withoutStudio?: boolean | undefined;
}

/**
 * The last requests of this server, in memory: a ring of at most
 * `capacity` entries fed by the access log's hook, so it can never grow
 * past its bound nor touch the disk. It is per server and empty after a
 * restart; nothing a client sent is kept but its method (the route is
 * the template; no path, query string, header, token or body).
 */
export interface RequestLog {
  /** How many entries it keeps at most (0: it records nothing). */
  readonly capacity: number;
  /** Entries held now. */
  readonly size: number;
  /** Records one answered request (the access log's `onEntry`). */
  record(entry: AccessLogEntry): void;
  /** Entries that pass `filter`, newest first. */
  query(filter?: RequestLogFilter): RequestLogEntry[];
  /** Route templates of the entries held, sorted (a filter's choices). */
  routes(): string[];
}

/** Makes the ring (see `RequestLog`). `now` stamps each entry. */
export function createRequestLog(
  options: { readonly capacity?: number; readonly now?: () => number } = {},
): RequestLog {
  const capacity = Math.max(0, Math.floor(options.capacity ?? DEFAULT_REQUEST_LOG_ENTRIES));
  const now = options.now ?? Date.now;
  const ring: (RequestLogEntry | undefined)[] = new Array(capacity);
  let next = 0;
  let seq = 0;
  let size = 0;

  const matches = (entry: RequestLogEntry, filter: RequestLogFilter): boolean =>
    (filter.statusClass === undefined || Math.floor(entry.status / 100) === filter.statusClass) &&
    (filter.route === undefined || entry.route === filter.route) &&
    (filter.caller === undefined || entry.caller === filter.caller) &&
    (filter.since === undefined || entry.at >= filter.since) &&
    (filter.before === undefined || entry.seq < filter.before) &&
    (filter.withoutStudio !== true || !entry.route.startsWith("/studio"));

  return {
    capacity,
    get size() {
      return size;
    },
    record(entry) {
      if (capacity === 0) return;
      seq += 1;
      ring[next] = {
        seq,
        at: now(),
        requestId: entry.requestId,
        method: entry.method,
        route: entry.route,
        status: entry.status,
        durationMs: entry.durationMs,
        caller: entry.caller,
        bytes: entry.bytes,
        aborted: entry.aborted === true,
      };
      next = (next + 1) % capacity;
      if (size < capacity) size += 1;
    },
    query(filter = {}) {
      const found: RequestLogEntry[] = [];
      // Newest first: backwards from the slot written last.
      for (let index = 1; index <= size; index++) {
        const entry = ring[(next - index + capacity) % capacity];
        if (entry !== undefined && matches(entry, filter)) found.push(entry);
      }
      return found;
    },
    routes() {
      const routes = new Set<string>();
      for (const entry of ring) if (entry !== undefined) routes.add(entry.route);
      return [...routes].sort();
    },
  };
}

/** One bucket of a chart: requests per minute and latency percentiles over `[start, start + ms)`. */
export interface RequestBucket {
  readonly start: number;
  readonly requests: number;
  readonly errors: number;
  /** Null when the bucket has no request. */
  readonly p50: number | null;
  readonly p95: number | null;
}

/** The nearest-rank percentile `p` (0..1) of sorted values. */
export function percentile(sorted: readonly number[], p: number): number | null {
  if (sorted.length === 0) return null;
  const rank = Math.max(1, Math.ceil(p * sorted.length));
  return sorted[Math.min(sorted.length, rank) - 1] ?? null;
}

/**
 * Groups entries into `count` buckets of `bucketMs` ending at `end`:
 * requests, errors (5xx) and the p50 / p95 of their durations.
 */
export function bucketRequests(
  entries: readonly RequestLogEntry[],
  input: { readonly end: number; readonly bucketMs: number; readonly count: number },
): RequestBucket[] {
  const { end, bucketMs, count } = input;
  const start = end - bucketMs * count;
  const durations: number[][] = Array.from({ length: count }, () => []);
  const errors: number[] = new Array(count).fill(0);
  for (const entry of entries) {
    if (entry.at < start || entry.at >= end) continue;
    const index = Math.floor((entry.at - start) / bucketMs);
    durations[index]?.push(entry.durationMs);
    if (entry.status >= 500) errors[index] = (errors[index] ?? 0) + 1;
  }
  return durations.map((values, index) => {
    const sorted = [...values].sort((a, b) => a - b);
    return {
      start: start + index * bucketMs,
      requests: values.length,
      errors: errors[index] ?? 0,
      p50: percentile(sorted, 0.5),
      p95: percentile(sorted, 0.95),
    };
  });
}
