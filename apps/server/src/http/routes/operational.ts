import type { Store } from "@svc/store";
import { type Request, Router } from "express";
import { ServerError } from "../../errors.js";
import type { ServerMetrics } from "../metrics.js";

function isLoopback(req: Request): boolean {
  const address = req.socket.remoteAddress ?? "";
  return address === "::1" || address.startsWith("127.") || address.startsWith("::ffff:127.");
}

/**
 * Health (`/health`, always cheap), readiness (`/readyz`, pings the
 * database) and Prometheus metrics (`/metrics`).
 */
export function operationalRoutes(options: {
  store: Store;
  metrics: ServerMetrics;
  /** Milliseconds since the epoch; injectable for tests. */
  now: () => number;
  startedAt: number;
}): Router {
  const { store, metrics, now, startedAt } = options;
  const router = Router();
  router.get("/health", (_req, res) => {
    res.json({ status: "ok", uptime_seconds: Math.floor((now() - startedAt) / 1000) });
  });
  router.get("/readyz", async (_req, res) => {
    try {
      await store.ping();
    } catch (error) {
      throw new ServerError("NOT_READY", undefined, { cause: error });
    }
    res.json({ status: "ready" });
  });
  router.get("/metrics", metrics.handler);
  return router;
}

/**
 * `POST /api/__test__/reset`: empties every entity. Mounted only in dev mode
 * on in-memory storage, and answers loopback callers only.
 */
export function testResetRoutes(store: Store): Router {
  const router = Router();
  router.post("/api/__test__/reset", async (req, res) => {
    if (!isLoopback(req)) throw new ServerError("LOOPBACK_ONLY");
    await store.truncateAll();
    res.json({ reset: true });
  });
  return router;
}
