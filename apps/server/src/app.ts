import type { Auth } from "@svc/auth-core";
import {
  type AuthenticateOptions,
  type AuthRouterOptions,
  createAuthRouter,
  setErrorHeaders,
} from "@svc/auth-core/express";
import type { Billing } from "@svc/billing";
import { createBillingRouter } from "@svc/billing/express";
import type { Files } from "@svc/files";
import { createFilesRouter } from "@svc/files/express";
import { type FunctionCaller, registerFunctionRoutes } from "@svc/functions/express";
import type { JobQueue } from "@svc/jobs";
import { createJobsRouter } from "@svc/jobs/express";
import { createOAuthRouter, type OAuthRouterOptions } from "@svc/oauth-providers/express";
import { createIdempotency, type Store } from "@svc/store";
import { registerEntityRoutes } from "@svc/store/express";
import type { EventStreams, Sync } from "@svc/sync";
import { createSyncRouter } from "@svc/sync/express";
import express, { type NextFunction, type Request, type Response } from "express";
import { ServerError, toErrorResponse } from "./errors.js";
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

/** Everything the express app is composed from; built by `startServer` or a test. */
export interface AppOptions {
  store: Store;
  functions: FunctionCaller;
  /** How a request's caller is resolved: bearer resolvers in the spec's order, the session cookie. */
  authenticate: AuthenticateOptions;
  /** The auth endpoints (`/api/auth/...`); left out when undefined. */
  auth?: { core: Auth; router: AuthRouterOptions };
  /** The OAuth sign-in routes (providers, login, callback); left out when undefined. */
  oauth?: OAuthRouterOptions;
  /** The billing routes (checkout, webhook, entitlements, replay); left out when undefined. */
  billing?: { core: Billing; publicURL?: string | undefined };
  /** File uploads and reads (`/api/files`, `SVC_FILES_URL_PREFIX`); left out when undefined. */
  files?: Files;
  /** The job queue's admin routes (`/api/admin/jobs`); left out when undefined. */
  jobs?: JobQueue;
  /**
   * The sync routes (`GET /api/sync/pull`); left out when undefined. Its log
   * must be the store's change bus (the dev reset route's `truncateAll`
   * then voids it too).
   */
  sync?: Sync;
  /** The SSE transport, served at `/events` (GET and CORS preflight); left out when undefined. */
  events?: EventStreams;
  devMode: boolean;
  /** Origins allowed by CORS outside dev mode. */
  corsOrigins: readonly string[];
  /** Origins trusted for cookie-authenticated changes outside dev mode. Default `corsOrigins`. */
  csrfOrigins?: readonly string[];
  /**
   * The app's public address (`SVC_PUBLIC_URL`): its origin is trusted by
   * the CSRF checks like the server's own, which a proxy that rewrites
   * `Host` hides.
   */
  publicURL?: string | undefined;
  /** True when the database lives in memory (enables the dev reset endpoint). */
  inMemory: boolean;
  bodyLimitBytes: number;
  /** express's `trust proxy` (client address for rate limits, protocol for links). Default false. */
  trustProxy?: boolean | number | string;
  /** Milliseconds since the epoch. Default `Date.now`. */
  now?: () => number;
  /** The agent API and MCP endpoint; left out when undefined. */
  agent?: AgentRoutesOptions;
  /** The admin studio at `/studio` (sign-in with the admin token); left out when undefined. */
  studio?: StudioOptions;
  /**
   * The app's static front end (the `public/` directory beside the
   * manifest), served after every other route; left out when undefined.
   */
  publicDir?: string;
  /** Receives unexpected errors; default logs them (`error`, with the route template). */
  onInternalError?: (error: unknown, req: Request) => void;
  /** Where the app logs (unexpected errors, the access log). Default JSON lines at `info` to stdout. */
  logger?: ServerLogger;
  /** One `info` line per request (`SVC_ACCESS_LOG`). Default true. */
  accessLog?: boolean;
  /** The registry `/metrics` reports (made earlier, so boot can wire its sources). Default a new one. */
  metrics?: ServerMetrics;
}

/** The express app plus the metrics registry it reports to. */
export interface App {
  readonly express: express.Express;
  readonly metrics: ServerMetrics;
  /** Whether writes have room; failures outside a request (jobs) may be reported to it too. */
  readonly storage: StorageHealth;
}

/** `origins` plus the origin of `url` (when given and not listed yet). */
function withOrigin(origins: readonly string[], url: string | undefined): readonly string[] {
  if (url === undefined || !URL.canParse(url)) return origins;
  const { origin } = new URL(url);
  return origins.includes(origin) ? origins : [...origins, origin];
}

/**
 * Composes the application API. Kept lean on purpose: no ETag work, no
 * `X-Powered-By`, JSON parsing only on routes that read a body.
 */
export function createApp(options: AppOptions): App {
  const now = options.now ?? Date.now;
  const startedAt = now();
  const metrics = options.metrics ?? createServerMetrics();
  const logger = options.logger ?? createLogger();
  const app = express();
  app.disable("x-powered-by");
  app.set("etag", false);
  app.set("trust proxy", options.trustProxy ?? false);
  // `/API/fn/x` must not reach a route past the /api gate's prefix check.
  app.set("case sensitive routing", true);

  // Who may change things with the session cookie, and sign in with one:
  // the CSRF list plus the public address's origin (dev mode: any origin).
  const csrfOrigins: true | readonly string[] = options.devMode
    ? true
    : withOrigin(options.csrfOrigins ?? options.corsOrigins, options.publicURL);

  // First: the request id, its log context and span, the access log line.
  app.use(
    requestLogging({
      logger,
      accessLog: options.accessLog !== false,
      trustProxy: (options.trustProxy ?? false) !== false,
      // The studio's Logs page keeps the last requests in memory.
      ...(options.studio?.requestLog !== undefined && {
        onEntry: options.studio.requestLog.record,
      }),
    }),
  );
  app.use(metrics.middleware);
  // Before anything reads the path: absolute-form targets become origin
  // form (or are refused), so the gate below and the router agree on it.
  app.use(normalizeRequestTarget);
  // Unprefixed on purpose: a path-scoped `use` makes express rewrite the URL
  // twice per request; the gate checks the prefix itself.
  app.use(
    apiGate({
      authenticate: options.authenticate,
      corsOrigins: options.devMode ? true : options.corsOrigins,
      csrfOrigins,
      ...(options.files !== undefined && { filesURLPrefix: options.files.urlPrefix }),
    }),
  );
  // The hottest routes first, registered flat on the app with their full
  // paths: each is one layer for express to match (a mounted router costs
  // a pass of its own per request), and the metrics label is the whole
  // template. Only routes that read a body get the JSON parser.
  const routeOptions = { bodyLimitBytes: options.bodyLimitBytes };
  registerFunctionRoutes(app, options.functions, routeOptions);
  registerEntityRoutes(app, options.store, {
    ...routeOptions,
    // The entity writes' `Idempotency-Key` records (the runner keeps its own).
    idempotency: createIdempotency(options.store, {
      now,
      onError: (error) => logger.error({ err: error }, "pruning idempotency keys failed"),
    }),
  });
  if (options.auth !== undefined) {
    app.use(createAuthRouter(options.auth.core, { ...options.auth.router, csrfOrigins }));
  }
  if (options.oauth !== undefined) app.use(createOAuthRouter(options.oauth));
  if (options.billing !== undefined) {
    app.use(
      createBillingRouter(options.billing.core, {
        ...(options.billing.publicURL !== undefined && { publicURL: options.billing.publicURL }),
      }),
    );
  }
  if (options.jobs !== undefined) app.use(createJobsRouter(options.jobs));
  if (options.sync !== undefined) app.use(createSyncRouter(options.sync));
  if (options.files !== undefined) app.use(createFilesRouter(options.files));
  const { events } = options;
  if (events !== undefined) {
    // The stream authenticates its caller itself (header or cookie) and
    // answers its own CORS preflight.
    app.get("/events", (req, res) => events.handle(req, res));
    app.options("/events", (req, res) => events.handle(req, res));
  }
  const storage = createStorageHealth({ probe: () => options.store.probeStorage(), now });
  registerOperationalRoutes(app, { store: options.store, metrics, storage, now, startedAt });
  if (options.devMode && options.inMemory) {
    const auth = options.auth?.core;
    const { oauth, billing, jobs } = options;
    registerTestResetRoute(app, [
      () => options.store.truncateAll(),
      ...(auth === undefined ? [] : [() => auth.reset()]),
      ...(oauth === undefined ? [] : [() => oauth.states.clear()]),
      ...(billing === undefined ? [] : [() => billing.core.reset()]),
      ...(jobs === undefined ? [] : [() => jobs.clear()]),
    ]);
  }
  const onInternalError = options.onInternalError ?? internalErrorLogger(logger);
  if (options.agent !== undefined) registerAgentRoutes(app, { ...options.agent, onInternalError });
  if (options.studio !== undefined) app.use(createStudioRouter(options.studio));
  // Last, so every framework route wins over a file of the same name.
  if (options.publicDir !== undefined) app.use(appPages(options.publicDir));

  app.use((req: Request, _res: Response, next: NextFunction) => {
    next(new ServerError("ROUTE_NOT_FOUND", `No route for ${req.method} ${req.path}.`));
  });
  app.use((error: unknown, req: Request, res: Response, _next: NextFunction) => {
    const { status, body: envelope, headers, internal } = toErrorResponse(error);
    // Exposed 5xx errors (a failing function) keep their cause for the log.
    if (internal || status >= 500) {
      onInternalError(error, req);
      // A full disk takes the server out of readiness until there is room.
      storage.observe(error);
    }
    if (res.headersSent) {
      res.end();
      return;
    }
    setErrorHeaders(res, headers);
    res.status(status).json(envelope);
  });

  return { express: app, metrics, storage };
}
