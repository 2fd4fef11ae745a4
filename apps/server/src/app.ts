import type { AuthenticateOptions } from "@svc/auth-core/express";
import { errorHandler } from "@svc/schema/http";
import type { ComposedModules, Store } from "@svc/store";
import type { EventStreams } from "@svc/sync";
import express, { type IRouter, type NextFunction, type Request, type Response } from "express";
import { ServerError } from "./errors.js";
import { type AgentRoutesOptions, registerAgentRoutes } from "./http/agent-routes.js";
import { appPages } from "./http/app-pages.js";
import { createServerMetrics, type ServerMetrics } from "./http/metrics.js";
import { apiGate } from "./http/request-auth.js";
import { normalizeRequestTarget } from "./http/request-target.js";
import { registerOperationalRoutes, registerTestResetRoute } from "./http/routes/operational.js";
import { createStorageHealth, type StorageHealth } from "./http/storage-health.js";
import { internalErrorLogger } from "./logging/internal-error.js";
import { createLogger, type ServerLogger } from "./logging/logger.js";
import { requestLogging } from "./logging/request-logging.js";
import type { StudioOptions } from "./studio/studio-options.js";
import { createStudioRouter } from "./studio/studio-router.js";

/** What the express app is composed from; built by `startServer` or a test. */
export interface AppOptions {
  /** The packages' modules: their routes are mounted in list order behind the gate, which tries their bearer resolvers. */
  readonly modules: ComposedModules<IRouter>;
  readonly store: Store;
  /** The session cookie: its name, how its token resolves to a caller, and how to clear a stale one. */
  readonly sessionCookie: NonNullable<AuthenticateOptions["cookie"]>;
  /** The SSE transport, served at `/events` (GET and CORS preflight); left out when undefined. */
  readonly events?: EventStreams;
  /** The files routes' prefix: their local upload PUTs carry a one-time token instead of a caller. */
  readonly filesURLPrefix?: string;
  readonly devMode: boolean;
  /** Origins allowed by CORS outside dev mode. */
  readonly corsOrigins: readonly string[];
  /** Who may change things with the session cookie (`true`: any origin). */
  readonly csrfOrigins: true | readonly string[];
  /** True when the database lives in memory (enables the dev reset endpoint). */
  readonly inMemory: boolean;
  /** express's `trust proxy` (client address for rate limits, protocol for links). Default false. */
  readonly trustProxy?: boolean | number | string;
  /** Milliseconds since the epoch. Default `Date.now`. */
  readonly now?: () => number;
  /** The agent API and MCP endpoint; left out when undefined. */
  readonly agent?: AgentRoutesOptions;
  /** The admin studio at `/studio`; left out when undefined. */
  readonly studio?: StudioOptions;
  /** The app's static front end (`public/` beside the manifest), served after every other route. */
  readonly publicDir?: string;
  /** Receives unexpected errors; default logs them (`error`, with the route template). */
  readonly onInternalError?: (error: unknown, req: Request) => void;
  /** Where the app logs. Default JSON lines at `info` to stdout. */
  readonly logger?: ServerLogger;
  /** One `info` line per request (`SVC_ACCESS_LOG`). Default true. */
  readonly accessLog?: boolean;
  /** The registry `/metrics` reports. Default a new one. */
  readonly metrics?: ServerMetrics;
}

/** The express app, and whether writes have room (failures outside a request, jobs, may be reported to it). */
export interface App {
  readonly express: express.Express;
  readonly storage: StorageHealth;
}

/**
 * Composes the application API: the request log, the gate (CORS, the
 * caller, CSRF), every module's routes, the operational routes, the agent
 * API, the studio and the app's own pages. Kept lean on purpose: no ETag
 * work, no `X-Powered-By`, JSON parsing only on routes that read a body.
 */
export function createApp(options: AppOptions): App {
  const now = options.now ?? Date.now;
  const startedAt = now();
  const metrics = options.metrics ?? createServerMetrics();
  const logger = options.logger ?? createLogger();
  const onInternalError = options.onInternalError ?? internalErrorLogger(logger);
  const app = express();
  app.disable("x-powered-by");
  app.set("etag", false);
  app.set("trust proxy", options.trustProxy ?? false);
  // `/API/fn/x` must not reach a route past the /api gate's prefix check.
  app.set("case sensitive routing", true);
  // First: the request id, its log context and span, the access log line (and the studio's Logs page).
  const accessLog = options.accessLog !== false;
  const trustProxy = (options.trustProxy ?? false) !== false;
  app.use(
    requestLogging({ logger, accessLog, trustProxy, onEntry: options.studio?.requestLog?.record }),
  );
  app.use(metrics.middleware);
  // Absolute-form targets become origin form first, so the gate and the router agree on the path.
  app.use(normalizeRequestTarget);
  app.use(
    apiGate({
      authenticate: { resolvers: options.modules.resolvers, cookie: options.sessionCookie },
      corsOrigins: options.devMode ? true : options.corsOrigins,
      csrfOrigins: options.csrfOrigins,
      ...(options.filesURLPrefix !== undefined && { filesURLPrefix: options.filesURLPrefix }),
    }),
  );
  // Flat on the app, the hottest first, with their full paths: each route is
  // one layer for express to match, and the metrics label is the whole template.
  options.modules.routes(app);
  const { events } = options;
  if (events !== undefined) {
    // The stream authenticates its caller itself and answers its own CORS preflight.
    app.get("/events", (req, res) => events.handle(req, res));
    app.options("/events", (req, res) => events.handle(req, res));
  }
  const storage = createStorageHealth({ probe: () => options.store.probeStorage(), now });
  registerOperationalRoutes(app, { store: options.store, metrics, storage, now, startedAt });
  const { modules } = options;
  if (options.devMode && options.inMemory) registerTestResetRoute(app, [() => modules.reset()]);
  if (options.agent !== undefined) registerAgentRoutes(app, { ...options.agent, onInternalError });
  if (options.studio !== undefined) app.use(createStudioRouter(options.studio));
  // Last, so every framework route wins over a file of the same name.
  if (options.publicDir !== undefined) app.use(appPages(options.publicDir));
  app.use((req: Request, _res: Response, next: NextFunction) => {
    next(new ServerError("ROUTE_NOT_FOUND", `No route for ${req.method} ${req.path}.`));
  });
  app.use(
    errorHandler<Request>({
      // Exposed 5xx errors (a failing function) keep their cause for the log;
      // a full disk takes the server out of readiness until there is room.
      onError: (error, req) => {
        onInternalError(error, req);
        storage.observe(error);
      },
    }),
  );
  return { express: app, storage };
}
