import type { Request } from "express";
import { routeTemplate } from "../http/metrics.js";
import type { ServerLogger } from "./logger.js";

/**
 * Logs an unexpected error of a request at `error`, with its method and
 * route template, never the path (which may hold ids or tokens).
 */
export function internalErrorLogger(logger: ServerLogger): (error: unknown, req: Request) => void {
  return (error, req) =>
    logger.error({ err: error, method: req.method, route: routeTemplate(req) }, "request failed");
}
