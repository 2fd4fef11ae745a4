import type { Store } from "@svc/store";
import type { IRouter, Request } from "express";
import { ServerError, toErrorResponse } from "../../errors.js";
import type { ServerMetrics } from "../metrics.js";
import type { StorageHealth } from "../storage-health.js";

function isLoopback(req: Request): boolean {
  const address = req.socket.remoteAddress ?? "";
  return address === "::1" || address.startsWith("127.") || address.startsWith("::ffff:127.");
}

/**
 * Health (`/health`, always cheap), readiness (`/readyz`, pings the
 * database, and answers `507 STORAGE_FULL` while writes fail for want of
 * room) and Prometheus metrics (`/metrics`).
 */
export function registerOperationalRoutes(
  app: IRouter,
  options: {
    store: Store;
    metrics: ServerMetrics;
    /** Whether writes have room (marked by failures, cleared by its probe). */
    storage: StorageHealth;
    /** Milliseconds since the epoch; injectable for tests. */
    now: () => number;
    startedAt: number;
  },
): void {
  const { store, metrics, storage, now, startedAt } = options;
  app.get("/health", (_req, res) => {
    res.json({ status: "ok", uptime_seconds: Math.floor((now() - startedAt) / 1000) });
  });
  app.get("/readyz", async (_req, res) => {
    let full: unknown;
    try {
      full = await storage.check();
      await store.ping();
    } catch (error) {
      throw new ServerError("NOT_READY", undefined, { cause: error });
    }
    if (full !== undefined) {
      // Answered here, not thrown: the failed write was logged already, and
      // a load balancer asks every few seconds.
      const { status, body, headers } = toErrorResponse(full);
      for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
      res.status(status).json(body);
      return;
    }
    res.json({ status: "ready" });
  });
  app.get("/metrics", metrics.handler);
}

/**
 * `POST /api/__test__/reset`: empties every entity and the framework
 * packages' tables (sessions, codes, limits), through the `resets` given.
 * Mounted only in dev mode on in-memory storage; loopback callers only.
 */
export function registerTestResetRoute(
  app: IRouter,
  resets: readonly (() => Promise<void>)[],
): void {
  app.post("/api/__test__/reset", async (req, res) => {
    if (!isLoopback(req)) throw new ServerError("LOOPBACK_ONLY");
    for (const reset of resets) await reset();
    res.json({ reset: true });
  });
}
