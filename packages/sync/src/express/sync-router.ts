import { getCaller } from "@svc/schema/http";
import express, { type IRouter, type Router } from "express";
import type { Sync } from "../create-sync.js";

/** The pull route's path. */
export const SYNC_PULL_PATH = "/api/sync/pull";

/**
 * The sync routes as one express router (absolute paths):
 *
 * - `GET /api/sync/pull?since=<cursor>&limit=<n>` → `{changes, cursor,
 *   has_more}` for the caller `getCaller(req)` (@svc/schema/http) (anonymous callers see what
 *   the policies let anonymous callers read); 400 `INVALID_QUERY`, 410
 *   `RESYNC_REQUIRED`.
 *
 * Mount it after auth-core's `authenticate`; errors go to the app's error
 * handler (`SyncError` is a wire error).
 *
 * @example
 * app.use(authenticate({ resolvers }));
 * app.use(createSyncRouter(sync));
 * app.use(authErrorHandler());
 */
export function createSyncRouter(sync: Sync): Router {
  const router = express.Router({ caseSensitive: true });
  registerSyncRoutes(router, () => sync);
  return router;
}

/**
 * The routes of `createSyncRouter`, registered straight onto an app or
 * router; `sync` is asked for per request (the sync module makes its core
 * only when it starts).
 */
export function registerSyncRoutes(router: IRouter, sync: () => Sync): void {
  router.get(SYNC_PULL_PATH, async (req, res) => {
    const { since, limit } = req.query;
    const result = await sync().pull(getCaller(req), {
      since: since as string | undefined,
      limit: limit as string | undefined,
    });
    res.set("Cache-Control", "no-store");
    res.json(result);
  });
}
