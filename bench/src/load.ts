import autocannon from "autocannon";

/** One HTTP request, repeated by every connection for the whole run. */
export interface LoadRequest {
  readonly url: string;
  readonly method: "GET" | "POST";
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: string;
}

/** What one measured run produced. */
export interface LoadResult {
  /** Mean completed requests per second over the run's one-second samples. */
  readonly requestsPerSecond: number;
  /** Latency percentiles, in milliseconds. */
  readonly p50Ms: number;
  readonly p99Ms: number;
  /** Completed requests. */
  readonly total: number;
  /** Responses whose status was not 2xx, and connection errors and timeouts. */
  readonly non2xx: number;
  readonly errors: number;
}

/** How long and how hard to drive the server. */
export interface LoadShape {
  readonly durationSeconds: number;
  readonly connections: number;
  /**
   * Requests per second to send in all, spread over the connections; unset,
   * each connection sends its next request as soon as the last is answered.
   */
  readonly requestsPerSecond?: number;
}

/**
 * Drives one URL with autocannon from this process (the server runs in its
 * own child process) and summarises the run.
 */
export async function runLoad(request: LoadRequest, shape: LoadShape): Promise<LoadResult> {
  const result = await autocannon({
    url: request.url,
    method: request.method,
    headers: { ...request.headers },
    ...(request.body === undefined ? {} : { body: request.body }),
    connections: shape.connections,
    duration: shape.durationSeconds,
    pipelining: 1,
    timeout: 10,
    ...(shape.requestsPerSecond === undefined ? {} : { overallRate: shape.requestsPerSecond }),
  });
  return {
    requestsPerSecond: result.requests.average,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    total: result.requests.total,
    non2xx: result.non2xx,
    errors: result.errors,
  };
}
