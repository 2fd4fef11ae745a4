import type { Auth } from "@svc/auth-core";
import type { FunctionRunner } from "@svc/functions";
import type { JobQueue } from "@svc/jobs";
import type { Store } from "@svc/store";
import type { LiveCallers } from "@svc/sync";
import type { Request, RequestHandler } from "express";
import type { ServerConfig } from "../config.js";
import type { ServerMetrics } from "../http/metrics.js";
import { createMetricsHistory, type MetricsHistory } from "./metrics-history.js";
import { createRequestLog } from "./request-log.js";
import type { StudioOptions } from "./studio-options.js";

/** The studio of a server, and the sampler behind its Metrics page (started and stopped with the server). */
export interface ServerStudio {
  readonly options: StudioOptions;
  readonly metricsHistory: MetricsHistory;
}

/**
 * The admin studio over the server's own store, runner, auth tables, queue
 * and live connections, with its Logs page's ring of recent requests
 * (`SVC_STUDIO_LOG_ENTRIES`, off at 0) and its Metrics page's history (the
 * registry sampled every 10 s, the last hour kept).
 */
export function serverStudio(input: {
  readonly config: ServerConfig;
  readonly store: Store;
  readonly runner: FunctionRunner;
  readonly auth: Auth;
  readonly jobs: JobQueue;
  readonly callers: LiveCallers;
  readonly metrics: ServerMetrics;
  readonly adminToken: string;
  /** Its sign-in counts against the sign-in endpoints' per-address limit (none when limits are off). */
  readonly signInLimiter: RequestHandler | undefined;
  readonly now: () => number;
  readonly onInternalError: (error: unknown, req: Request) => void;
}): ServerStudio {
  const { config, now } = input;
  const metricsHistory = createMetricsHistory({ registry: input.metrics.registry, now });
  return {
    metricsHistory,
    options: {
      store: input.store,
      functions: input.runner,
      auth: input.auth,
      jobs: input.jobs,
      adminToken: input.adminToken,
      devMode: config.devMode,
      bodyLimitBytes: config.bodyLimitBytes,
      signInLimiter: input.signInLimiter,
      now,
      onInternalError: input.onInternalError,
      metricsHistory,
      live: input.callers,
      requestLog:
        config.studio.logEntries > 0
          ? createRequestLog({ capacity: config.studio.logEntries, now })
          : undefined,
    },
  };
}
