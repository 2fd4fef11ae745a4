import type { NextFunction, Request, RequestHandler, Response } from "express";
import { Counter, collectDefaultMetrics, Histogram, Registry } from "prom-client";

/** The server's Prometheus registry and the request instruments in it. */
export interface ServerMetrics {
  readonly registry: Registry;
  /** Records count and duration of each request by method, route template and status. */
  readonly middleware: RequestHandler;
  /** `GET /metrics`. */
  readonly handler: RequestHandler;
  /** Records how many transactions one SQLite commit held (the store's group commit). */
  readonly recordCommit: (transactions: number) => void;
}

/**
 * Creates a private registry (never prom-client's global one, so several
 * servers in one process keep separate numbers) with the process metrics,
 * the request counter and duration histogram, and the size of SQLite's
 * group commits.
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

  return {
    registry,
    middleware,
    handler,
    recordCommit: (transactions) => commitSize.observe(transactions),
  };
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
function routeTemplate(req: Request): string {
  const path: unknown = req.route?.path;
  return typeof path === "string" ? path : "unmatched";
}
