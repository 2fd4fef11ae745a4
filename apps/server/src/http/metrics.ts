import type { CacheStats } from "@svc/auth-core";
import type { ChangeLogObserver, FeedStatus } from "@svc/sync";
import type { NextFunction, Request, RequestHandler, Response } from "express";
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from "prom-client";

/** The in-process caches reported as `svc_cache_*{cache}`. */
export type CacheName = "session" | "api_key" | "entitlements";

/** The server's Prometheus registry and the instruments in it. */
export interface ServerMetrics {
  readonly registry: Registry;
  /** Records count and duration of each request by method, route template and status. */
  readonly middleware: RequestHandler;
  /** `GET /metrics`. */
  readonly handler: RequestHandler;
  /** Records how many transactions one SQLite commit held (the store's group commit). */
  readonly recordCommit: (transactions: number) => void;
  /**
   * The change log's hooks (`createChangeLog({ observer })`): changes per
   * committed transaction, entries delivered and their lag, public reads'
   * waits for the visibility horizon.
   */
  readonly changeLogObserver: ChangeLogObserver;
  /** Reports the cross-server tail (`changeLog.feedStatus()`) at each scrape; Postgres only. */
  watchFeed(status: () => Promise<FeedStatus | null>): void;
  /** Reports these caches' counters at each scrape (`auth.cacheStats()`, `billing.entitlementCacheStats()`). */
  watchCaches(caches: Partial<Record<CacheName, () => CacheStats>>): void;
  /** Reports the open live connections (WebSocket, SSE, rooms) at each scrape as `svc_live_connections`. */
  watchLive(connections: () => number): void;
  /** Reports the job queue's jobs per status at each scrape as `svc_jobs{status}` (one grouped count). */
  watchJobs(counts: () => Promise<Readonly<Record<string, number>>>): void;
  /**
   * Wraps the job worker's `run`: each run counts in
   * `svc_job_runs_total{outcome}` (`succeeded` or `failed`) and its time
   * in `svc_job_run_duration_seconds`.
   */
  instrumentJobRun<TJob>(run: (job: TJob) => Promise<void>): (job: TJob) => Promise<void>;
}

/**
 * Creates a private registry (never prom-client's global one, so several
 * servers in one process keep separate numbers) with the process metrics,
 * the request counter and duration histogram, the size of SQLite's group
 * commits and of every write transaction, and the change feed's delivery
 * and lag; `watchFeed` and `watchCaches` add what is read at scrape time.
 */
export function createServerMetrics(): ServerMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const labelNames = ["method", "route", "status"] as const;
  const requests = new Counter({
    name: "svc_http_requests_total",
    help: "HTTP requests answered, by method, route template and status.",
    labelNames,
    registers: [registry],
  });
  const duration = new Histogram({
    name: "svc_http_request_duration_seconds",
    help: "Time to answer an HTTP request, by method, route template and status.",
    labelNames,
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [registry],
  });

  const commitSize = new Histogram({
    name: "svc_store_commit_transactions",
    help: "Transactions per SQLite commit: concurrent writes share one commit (group commit).",
    buckets: [1, 2, 4, 8, 16, 32, 64],
    registers: [registry],
  });

  const transactionChanges = new Histogram({
    name: "svc_store_transaction_changes",
    help: "Changes per committed write transaction (rows inserted, updated or deleted), both dialects.",
    buckets: [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024],
    registers: [registry],
  });
  const feedEntries = new Counter({
    name: "svc_sync_feed_entries_total",
    help: "Change log entries handed to this server's live subscribers (on Postgres: every server's commits).",
    registers: [registry],
  });
  const feedLag = new Histogram({
    name: "svc_sync_feed_lag_seconds",
    help: "Per delivered run of changes: delivery time minus its oldest entry's write time (0 on SQLite).",
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [registry],
  });
  const horizonWait = new Histogram({
    name: "svc_sync_horizon_wait_seconds",
    help: "Postgres: how long a pull or a snapshot cursor waited for older transactions to end (le=0: none open).",
    buckets: [0, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [registry],
  });
  const changeLogObserver: ChangeLogObserver = {
    onPublish: (changes) => transactionChanges.observe(changes),
    onDelivery: ({ entries, lagMs }) => {
      feedEntries.inc(entries);
      feedLag.observe(lagMs / 1000);
    },
    onHorizonWait: (waitedMs) => horizonWait.observe(waitedMs / 1000),
  };

  const middleware = (req: Request, res: Response, next: NextFunction): void => {
    const started = process.hrtime.bigint();
    // `finish` comes once per response; `on` spares the once-wrapper per request.
    res.on("finish", () => {
      const labels = {
        method: req.method,
        route: routeTemplate(req),
        status: String(res.statusCode),
      };
      requests.inc(labels);
      duration.observe(labels, Number(process.hrtime.bigint() - started) / 1e9);
    });
    next();
  };

  const handler = async (req: Request, res: Response): Promise<void> => {
    if (req.accepts(["text/plain", "application/json"]) === "application/json") {
      res.json(await registry.getMetricsAsJSON());
      return;
    }
    res.type(registry.contentType).send(await registry.metrics());
  };

  const jobRuns = new Counter({
    name: "svc_job_runs_total",
    help: "Job runs on this server's worker, by outcome: succeeded or failed (a failed run may be retried).",
    labelNames: ["outcome"] as const,
    registers: [registry],
  });
  const jobDuration = new Histogram({
    name: "svc_job_run_duration_seconds",
    help: "Time one job run took on this server's worker.",
    buckets: [0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 10, 30, 60],
    registers: [registry],
  });

  return {
    registry,
    middleware,
    handler,
    recordCommit: (transactions) => commitSize.observe(transactions),
    changeLogObserver,
    watchFeed: (status) => registerFeedGauges(registry, status),
    watchCaches: (caches) => registerCacheCounters(registry, caches),
    watchLive: (connections) => {
      new Gauge({
        name: "svc_live_connections",
        help: "Open live connections on this server: WebSocket subscriptions, SSE streams and room sockets together.",
        registers: [registry],
        collect() {
          this.set(connections());
        },
      });
    },
    watchJobs: (counts) => registerJobGauge(registry, counts),
    instrumentJobRun: (run) => async (job) => {
      const started = process.hrtime.bigint();
      const seconds = (): number => Number(process.hrtime.bigint() - started) / 1e9;
      try {
        await run(job);
      } catch (error) {
        jobRuns.inc({ outcome: "failed" });
        jobDuration.observe(seconds());
        throw error;
      }
      jobRuns.inc({ outcome: "succeeded" });
      jobDuration.observe(seconds());
    },
  };
}

/** `svc_jobs{status}` from one grouped count per scrape; a failed read leaves the last values. */
function registerJobGauge(
  registry: Registry,
  counts: () => Promise<Readonly<Record<string, number>>>,
): void {
  new Gauge({
    name: "svc_jobs",
    help: "Jobs in the durable queue by status (pending, running, succeeded, dead, cancelled); shared by every server on one database.",
    labelNames: ["status"] as const,
    registers: [registry],
    async collect() {
      const read = await counts().catch(() => null);
      if (read === null) return;
      for (const [status, count] of Object.entries(read)) this.set({ status }, count);
    },
  });
}

/**
 * The tail's gauges, read from one `feedStatus()` per scrape (the
 * collects of one scrape share it). A failed read leaves the last values.
 */
function registerFeedGauges(registry: Registry, read: () => Promise<FeedStatus | null>): void {
  let reading: Promise<FeedStatus | null> | undefined;
  const current = (): Promise<FeedStatus | null> => {
    reading ??= read()
      .catch(() => null)
      .finally(() => {
        reading = undefined;
      });
    return reading;
  };
  const gauge = (name: string, help: string, value: (status: FeedStatus) => number): void => {
    new Gauge({
      name,
      help,
      registers: [registry],
      async collect() {
        const status = await current();
        if (status !== null) this.set(value(status));
      },
    });
  };
  gauge(
    "svc_sync_feed_listening",
    "1 while this server's change feed listener (LISTEN) is connected, else 0.",
    (status) => (status.listening ? 1 : 0),
  );
  gauge(
    "svc_sync_feed_held_seconds",
    "How long delivery has waited for an older open transaction (the visibility horizon); 0 when caught up.",
    (status) => status.heldMs / 1000,
  );
  gauge(
    "svc_sync_feed_pending_entries",
    "Change log entries committed past the last one delivered here (counted up to 10,000); 0 when caught up.",
    (status) => status.pendingEntries,
  );
  gauge(
    "svc_sync_feed_paused",
    "1 while this server has no live client and its tail reads no other server's commits (and it greets none), else 0.",
    (status) => (status.paused ? 1 : 0),
  );
  new Counter({
    name: "svc_sync_feed_resumes_total",
    help: "Times the tail started following other servers' commits again (a first live client after none).",
    registers: [registry],
    async collect() {
      const status = await current();
      if (status === null) return;
      this.reset();
      this.inc(status.resumes);
    },
  });
}

/**
 * `svc_cache_*` from each cache's own counters, read at scrape time: the
 * request path only increments a number inside the cache.
 */
function registerCacheCounters(
  registry: Registry,
  caches: Partial<Record<CacheName, () => CacheStats>>,
): void {
  const sources = Object.entries(caches) as [CacheName, () => CacheStats][];
  // A few numbers per cache, copied: cheap enough to read once per series.
  const read = (): [CacheName, CacheStats][] => sources.map(([cache, stats]) => [cache, stats()]);
  new Counter({
    name: "svc_cache_requests_total",
    help: "Lookups of an in-process cache by result: hit (answered from memory) or miss (read the database).",
    labelNames: ["cache", "result"] as const,
    registers: [registry],
    collect() {
      this.reset();
      for (const [cache, stats] of read()) {
        this.inc({ cache, result: "hit" }, stats.hits);
        this.inc({ cache, result: "miss" }, stats.misses);
      }
    },
  });
  new Counter({
    name: "svc_cache_invalidations_total",
    help: "Times an in-process cache was told to drop something that changed (here or, through the revocation journal, on another server).",
    labelNames: ["cache"] as const,
    registers: [registry],
    collect() {
      this.reset();
      for (const [cache, stats] of read()) this.inc({ cache }, stats.invalidations);
    },
  });
  new Counter({
    name: "svc_cache_evictions_total",
    help: "Entries an in-process cache dropped because it was full.",
    labelNames: ["cache"] as const,
    registers: [registry],
    collect() {
      this.reset();
      for (const [cache, stats] of read()) this.inc({ cache }, stats.evictions);
    },
  });
  new Gauge({
    name: "svc_cache_entries",
    help: "Entries an in-process cache holds now.",
    labelNames: ["cache"] as const,
    registers: [registry],
    collect() {
      for (const [cache, stats] of read()) this.set({ cache }, stats.size);
    },
  });
}

/**
 * The matched route's template (`/api/fn/:name`), never the raw path, so a
 * client cannot blow up label cardinality with made-up URLs. Every router
 * of the app is mounted without a path and registers full paths, so the
 * template is the route's own path. `req.baseUrl` is not added: by the
 * time the response finishes it is whatever layer answered last, and a
 * path-scoped error handler (the studio's `/studio`) would prefix it again
 * (`/studio/studio/...`).
 */
export function routeTemplate(req: Request): string {
  const path: unknown = req.route?.path;
  return typeof path === "string" ? path : "unmatched";
}
