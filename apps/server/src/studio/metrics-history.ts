import type { Registry } from "prom-client";

/** Default time between two samples of the Metrics page's history: 10 s. */
export const DEFAULT_METRICS_INTERVAL_MS = 10_000;
/** Default number of samples kept: 360 (an hour at 10 s). */
export const DEFAULT_METRICS_SAMPLES = 360;

/** A histogram's state: cumulative counts per upper bound (`le`, Infinity last), sum and count. */
export interface HistogramState {
  readonly buckets: readonly { readonly le: number; readonly count: number }[];
  readonly sum: number;
  readonly count: number;
}

/**
 * What `/metrics` counted at one moment, reduced to what the Metrics page
 * draws. Counters are totals since the server started (the page draws
 * their rates); null where the server does not report the series.
 */
export interface MetricsSample {
  readonly at: number;
  readonly requests: number;
  readonly clientErrors: number;
  readonly serverErrors: number;
  readonly duration: HistogramState;
  readonly commitTransactions: HistogramState | null;
  readonly transactionChanges: HistogramState | null;
  readonly feedEntries: number | null;
  readonly feedLag: HistogramState | null;
  readonly liveConnections: number | null;
  readonly jobs: Readonly<Record<string, number>> | null;
  readonly jobRuns: { readonly succeeded: number; readonly failed: number };
  readonly cache: Readonly<Record<string, { readonly hit: number; readonly miss: number }>>;
  readonly cpuSeconds: number | null;
  readonly residentBytes: number | null;
  readonly eventLoopLagSeconds: number | null;
}

/** The history the Metrics page draws: samples of the server's registry, oldest first, in memory. */
export interface MetricsHistory {
  readonly intervalMs: number;
  readonly capacity: number;
  /** Takes a sample now (the page does before drawing, so its last point is current). */
  sample(): Promise<void>;
  /** The samples held, oldest first. */
  samples(): readonly MetricsSample[];
  /** Samples every `intervalMs` from now on (the timer does not keep the process alive). */
  start(): void;
  stop(): void;
}

interface MetricValue {
  readonly value: number;
  readonly labels: Readonly<Record<string, string | number>>;
  readonly metricName?: string;
}

interface MetricJSON {
  readonly name: string;
  readonly values: readonly MetricValue[];
}

function sumOf(
  metric: MetricJSON | undefined,
  keep: (value: MetricValue) => boolean = () => true,
): number {
  let total = 0;
  for (const value of metric?.values ?? []) if (keep(value)) total += value.value;
  return total;
}

/** A histogram's series merged over every label set (the page draws the whole server). */
function histogramOf(metric: MetricJSON | undefined): HistogramState | null {
  if (metric === undefined) return null;
  const byBound = new Map<number, number>();
  let sum = 0;
  let count = 0;
  for (const value of metric.values) {
    const name = value.metricName ?? "";
    if (name.endsWith("_bucket")) {
      const le = value.labels.le === "+Inf" ? Number.POSITIVE_INFINITY : Number(value.labels.le);
      byBound.set(le, (byBound.get(le) ?? 0) + value.value);
    } else if (name.endsWith("_sum")) sum += value.value;
    else if (name.endsWith("_count")) count += value.value;
  }
  const buckets = [...byBound]
    .sort(([a], [b]) => a - b)
    .map(([le, bucketCount]) => ({ le, count: bucketCount }));
  return { buckets, sum, count };
}

function gauge(metric: MetricJSON | undefined): number | null {
  const value = metric?.values[0]?.value;
  return value === undefined || !Number.isFinite(value) ? null : value;
}

/** Reduces `getMetricsAsJSON()` to a sample (see `MetricsSample`). */
export function sampleOf(metrics: readonly MetricJSON[], at: number): MetricsSample {
  const named = new Map(metrics.map((metric) => [metric.name, metric]));
  const requests = named.get("svc_http_requests_total");
  const status = (value: MetricValue): string => String(value.labels.status ?? "");
  const cache: Record<string, { hit: number; miss: number }> = {};
  for (const value of named.get("svc_cache_requests_total")?.values ?? []) {
    const name = String(value.labels.cache ?? "");
    const entry = cache[name] ?? { hit: 0, miss: 0 };
    cache[name] = entry;
    if (value.labels.result === "hit") entry.hit += value.value;
    else entry.miss += value.value;
  }
  const jobsMetric = named.get("svc_jobs");
  const jobRuns = named.get("svc_job_runs_total");
  return {
    at,
    requests: sumOf(requests),
    clientErrors: sumOf(requests, (value) => status(value).startsWith("4")),
    serverErrors: sumOf(requests, (value) => status(value).startsWith("5")),
    duration: histogramOf(named.get("svc_http_request_duration_seconds")) ?? {
      buckets: [],
      sum: 0,
      count: 0,
    },
    commitTransactions: histogramOf(named.get("svc_store_commit_transactions")),
    transactionChanges: histogramOf(named.get("svc_store_transaction_changes")),
    feedEntries: named.has("svc_sync_feed_entries_total")
      ? sumOf(named.get("svc_sync_feed_entries_total"))
      : null,
    feedLag: histogramOf(named.get("svc_sync_feed_lag_seconds")),
    liveConnections: gauge(named.get("svc_live_connections")),
    jobs:
      jobsMetric === undefined || jobsMetric.values.length === 0
        ? null
        : Object.fromEntries(
            jobsMetric.values.map((value) => [String(value.labels.status), value.value]),
          ),
    jobRuns: {
      succeeded: sumOf(jobRuns, (value) => value.labels.outcome === "succeeded"),
      failed: sumOf(jobRuns, (value) => value.labels.outcome === "failed"),
    },
    cache,
    cpuSeconds: gauge(named.get("process_cpu_seconds_total")),
    residentBytes: gauge(named.get("process_resident_memory_bytes")),
    eventLoopLagSeconds: gauge(named.get("nodejs_eventloop_lag_p99_seconds")),
  };
}

/**
 * Samples `registry` (`getMetricsAsJSON`, what `/metrics` answers) every
 * `intervalMs` into a ring of `samples`: the Metrics page's charts. In
 * memory and per server, like the registry itself; a sample that fails
 * (a database read of a gauge) is skipped.
 */
export function createMetricsHistory(options: {
  readonly registry: Pick<Registry, "getMetricsAsJSON">;
  readonly intervalMs?: number;
  readonly samples?: number;
  readonly now?: () => number;
}): MetricsHistory {
  const intervalMs = options.intervalMs ?? DEFAULT_METRICS_INTERVAL_MS;
  const capacity = Math.max(2, options.samples ?? DEFAULT_METRICS_SAMPLES);
  const now = options.now ?? Date.now;
  const held: MetricsSample[] = [];
  let timer: ReturnType<typeof setInterval> | undefined;
  let running: Promise<void> | undefined;

  const take = async (): Promise<void> => {
    const metrics = (await options.registry.getMetricsAsJSON()) as unknown as MetricJSON[];
    held.push(sampleOf(metrics, now()));
    if (held.length > capacity) held.splice(0, held.length - capacity);
  };

  const sample = (): Promise<void> => {
    // One at a time: a slow gauge never stacks reads.
    running ??= take()
      .catch(() => undefined)
      .finally(() => {
        running = undefined;
      });
    return running;
  };

  return {
    intervalMs,
    capacity,
    sample,
    samples: () => held,
    start() {
      if (timer !== undefined || intervalMs <= 0) return;
      void sample();
      timer = setInterval(() => void sample(), intervalMs);
      timer.unref();
    },
    stop() {
      if (timer !== undefined) clearInterval(timer);
      timer = undefined;
    },
  };
}

/** The value below which fraction `p` of a histogram's observations fall, interpolated in its bucket. */
export function histogramQuantile(state: HistogramState, p: number): number | null {
  if (state.count <= 0) return null;
  const target = p * state.count;
  let previousLe = 0;
  let previousCount = 0;
  for (const { le, count } of state.buckets) {
    if (count >= target) {
      if (!Number.isFinite(le)) return previousLe;
      const share =
        count === previousCount ? 0 : (target - previousCount) / (count - previousCount);
      return previousLe + (le - previousLe) * share;
    }
    previousLe = le;
    previousCount = count;
  }
  return previousLe;
}

/** What happened between two states of one histogram. */
export function histogramDelta(after: HistogramState, before: HistogramState): HistogramState {
  const earlier = new Map(before.buckets.map((bucket) => [bucket.le, bucket.count]));
  return {
    buckets: after.buckets.map((bucket) => ({
      le: bucket.le,
      count: bucket.count - (earlier.get(bucket.le) ?? 0),
    })),
    sum: after.sum - before.sum,
    count: after.count - before.count,
  };
}
