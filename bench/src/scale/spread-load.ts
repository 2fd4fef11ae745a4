import { type LoadRequest, type LoadResult, runLoad } from "../load.js";

/** The load of one run spread over several servers, and the sum of what they did. */
export interface SpreadResult {
  /** The sum of every server's mean req/s. */
  readonly requestsPerSecond: number;
  /** Requests completed in all. */
  readonly total: number;
  /** The highest p50 and p99 of the servers (autocannon keeps one histogram per instance). */
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly non2xx: number;
  readonly errors: number;
  /** Each server's own run, in the order of the requests. */
  readonly perServer: readonly LoadResult[];
}

/** `total` (connections, or requests per second) split as evenly as possible into `parts` (32 over 3: 11, 11, 10). */
export function splitEvenly(total: number, parts: number): number[] {
  return Array.from(
    { length: parts },
    (_, index) => Math.floor(total / parts) + (index < total % parts ? 1 : 0),
  );
}

/**
 * Drives every server at once (at `requestsPerSecond` in all when given, else
 * as fast as they answer) for the same duration, one autocannon
 * instance per server with its share of the connections, so each server
 * gets a fixed share of the clients (what a load balancer with least-
 * connections or round-robin over keep-alive connections does), all from
 * this process.
 */
export async function runSpreadLoad(
  requests: readonly LoadRequest[],
  connections: number,
  durationSeconds: number,
  requestsPerSecond?: number,
): Promise<SpreadResult> {
  const shares = splitEvenly(connections, requests.length);
  // A fixed rate is split like the connections, so every server gets its share.
  const rates =
    requestsPerSecond === undefined ? undefined : splitEvenly(requestsPerSecond, requests.length);
  const results = await Promise.all(
    requests.map((request, index) =>
      runLoad(request, {
        connections: Math.max(shares[index] ?? 1, 1),
        durationSeconds,
        ...(rates === undefined ? {} : { requestsPerSecond: Math.max(rates[index] ?? 1, 1) }),
      }),
    ),
  );
  const sum = (pick: (result: LoadResult) => number): number =>
    results.reduce((total, result) => total + pick(result), 0);
  return {
    requestsPerSecond: sum((r) => r.requestsPerSecond),
    total: sum((r) => r.total),
    p50Ms: Math.max(...results.map((r) => r.p50Ms)),
    p99Ms: Math.max(...results.map((r) => r.p99Ms)),
    non2xx: sum((r) => r.non2xx),
    errors: sum((r) => r.errors),
    perServer: results,
  };
}
