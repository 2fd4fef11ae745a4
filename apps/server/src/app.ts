import type { Store } from "@svc/store";
import cors from "cors";
import express, { type NextFunction, type Request, type Response } from "express";
import type { BearerResolver } from "./auth/resolve-bearer.js";
import { ServerError, toErrorResponse } from "./errors.js";
import { jsonBody } from "./http/json-body.js";
import { createServerMetrics, type ServerMetrics } from "./http/metrics.js";
import { authenticate } from "./http/request-auth.js";
import { batchRoutes } from "./http/routes/batch.js";
import { entityRoutes } from "./http/routes/entities.js";
import { type FunctionCaller, functionRoutes } from "./http/routes/functions.js";
import { operationalRoutes, testResetRoutes } from "./http/routes/operational.js";

/** Everything the express app is composed from; built by `startServer` or a test. */
export interface AppOptions {
  store: Store;
  functions: FunctionCaller;
  /** Bearer resolvers in the spec's order. */
  resolvers: readonly BearerResolver[];
  devMode: boolean;
  /** Origins allowed by CORS outside dev mode. */
  corsOrigins: readonly string[];
  /** True when the database lives in memory (enables the dev reset endpoint). */
  inMemory: boolean;
  bodyLimitBytes: number;
  /** Milliseconds since the epoch. Default `Date.now`. */
  now?: () => number;
  /** Receives unexpected errors; default logs to stderr. */
  onInternalError?: (error: unknown, req: Request) => void;
}

/** The express app plus the metrics registry it reports to. */
export interface App {
  readonly express: express.Express;
  readonly metrics: ServerMetrics;
}

function logInternalError(error: unknown, req: Request): void {
  console.error(`svc: ${req.method} ${req.path} failed:`, error);
}

/**
 * Composes the application API. Kept lean on purpose: no ETag work, no
 * `X-Powered-By`, JSON parsing only on routes that read a body.
 */
export function createApp(options: AppOptions): App {
  const now = options.now ?? Date.now;
  const startedAt = now();
  const metrics = createServerMetrics();
  const app = express();
  app.disable("x-powered-by");
  app.set("etag", false);

  app.use(metrics.middleware);
  app.use(operationalRoutes({ store: options.store, metrics, now, startedAt }));

  // Routes carry their full paths so the metrics label is the whole template.
  app.use(
    "/api",
    cors({
      origin: options.devMode ? true : [...options.corsOrigins],
      credentials: true,
      maxAge: 600,
    }),
    authenticate(options.resolvers),
  );
  const body = jsonBody(options.bodyLimitBytes);
  app.post("/api/{*rest}", body);
  app.patch("/api/{*rest}", body);
  app.use(functionRoutes(options.functions));
  app.use(entityRoutes(options.store));
  app.use(batchRoutes(options.store));
  if (options.devMode && options.inMemory) app.use(testResetRoutes(options.store));

  app.use((req: Request, _res: Response, next: NextFunction) => {
    next(new ServerError("ROUTE_NOT_FOUND", `No route for ${req.method} ${req.path}.`));
  });
  const onInternalError = options.onInternalError ?? logInternalError;
  app.use((error: unknown, req: Request, res: Response, _next: NextFunction) => {
    const { status, body: envelope, internal } = toErrorResponse(error);
    // Exposed 5xx errors (a failing function) keep their cause for the log.
    if (internal || status >= 500) onInternalError(error, req);
    if (res.headersSent) {
      res.end();
      return;
    }
    res.status(status).json(envelope);
  });

  return { express: app, metrics };
}
