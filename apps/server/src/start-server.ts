import { mkdir } from "node:fs/promises";
import { createServer } from "node:http";
import { dirname, join, resolve } from "node:path";
import { loadDocs } from "@svc/agent-docs";
import { type Auth, type AuthDatabase, createAuth } from "@svc/auth-core";
import {
  adminTokenResolver,
  apiKeyResolver,
  type BearerResolver,
  clearedSessionCookie,
  createRateLimits,
  SESSION_COOKIE,
  sessionResolver,
} from "@svc/auth-core/express";
import { type BillingEvent, checkBillingUser, createBilling } from "@svc/billing";
import { createBlobStoreFromConfig, createFiles, filesMigrations } from "@svc/files";
import { createFunctionRunner, loadFunctions } from "@svc/functions";
import {
  createJobQueue,
  createJobWorker,
  createQueueScheduler,
  type JobQueue,
  type JobWorker,
  jobsMigrations,
} from "@svc/jobs";
import { createStateStore, type OAuthProvider, oauthStateMigrations } from "@svc/oauth-providers";
import type { Manifest } from "@svc/schema";
import type { CallerSources } from "@svc/schema/http";
import { createStore, idempotencyMigrations, type Store } from "@svc/store";
import { openPostgres } from "@svc/store/pg";
import { openSqlite } from "@svc/store/sqlite";
import {
  cachedExistsResolver,
  createChangeLog,
  createLiveCallers,
  createReadTracker,
  createSync,
  startPruning,
  syncMigrations,
} from "@svc/sync";
import type { DestinationStream } from "pino";
import { type AppOptions, createApp } from "./app.js";
import { createAppEmailSender } from "./app-email.js";
import { ConfigError, type ServerConfig } from "./config.js";
import { readOrCreateDevAdminToken } from "./dev-admin-token.js";
import { entitledResolver, withEntitlements } from "./entitlements.js";
import { hasPublicDir } from "./http/app-pages.js";
import { answerClientError } from "./http/client-error.js";
import { createServerMetrics } from "./http/metrics.js";
import { liveClientIp, watchCallerChanges } from "./live-callers.js";
import { liveQueryRunner } from "./live-queries.js";
import { type LivePorts, listenOnPort, startLiveTransports } from "./live-transports.js";
import { internalErrorLogger } from "./logging/internal-error.js";
import { createLogger, type ServerLogger } from "./logging/logger.js";
import { runWithLogContext } from "./logging/request-context.js";
import { loadManifestFile } from "./manifest-file.js";
import { policyLintWarnings } from "./policy-lint-warnings.js";
import { defaultFilesDir, sqliteFiles } from "./storage-paths.js";
import { createMetricsHistory } from "./studio/metrics-history.js";
import { createRequestLog } from "./studio/request-log.js";
import { studioMigrations } from "./studio/studio-session-table.js";

/** A running server. */
export interface RunningServer {
  /** `http://host:port` of the listening socket. */
  readonly url: string;
  readonly port: number;
  /** The live transports' own ports (`SVC_PORT + 1`, `+ 2`, `+ 3`); their paths are on `port` too. */
  readonly livePorts: LivePorts;
  readonly store: Store;
  /** The auth core; `close()` it before the store (it writes buffered key use times). */
  readonly auth: Auth;
  /** The durable job queue (`ctx.scheduler`, `/api/admin/jobs`). */
  readonly jobs: JobQueue;
  readonly manifest: Manifest;
  /** The admin token in force (generated in dev mode when unset). */
  readonly adminToken: string;
  /** Where the dev-mode admin token is kept; undefined when `SVC_ADMIN_TOKEN` is set. */
  readonly adminTokenFile: string | undefined;
  /** The server's log (`SVC_LOG_LEVEL`, `SVC_LOG_FORMAT`); `main` announces the boot through it. */
  readonly logger: ServerLogger;
  /** Valid settings that are probably not what the operator meant, one line each. */
  readonly warnings: readonly string[];
  /**
   * Stops accepting connections, waits for in-flight requests up to
   * `drainSeconds` (default `SVC_DRAIN_SECS`), then closes the database.
   */
  close(options?: { drainSeconds?: number }): Promise<void>;
}

/** The attached SQLite database holding auth-core's tables (`SVC_SESSION_DB`). */
const AUTH_SCHEMA = "auth";

/** The attached SQLite database holding the job queue (`SVC_JOBS_DB`). */
const JOBS_SCHEMA = "jobs";

/**
 * Opens the application database. On Postgres the auth tables live in it
 * too (every server shares sessions, codes and limits). On SQLite they live
 * in `SVC_SESSION_DB` (in memory when unset), attached to the application
 * connection so one transaction spans both. The job queue likewise lives in
 * the Postgres database, or on SQLite in `SVC_JOBS_DB` (default
 * `<database file>.jobs.db`, in memory with an in-memory database),
 * attached, so a job scheduled in a mutation commits with it.
 */
async function openDatabase(config: ServerConfig, manifestDir: string) {
  if (config.databaseURL !== undefined) {
    const database = openPostgres(config.databaseURL);
    const auth: AuthDatabase = { db: database.db, dialect: "postgres" };
    return { ...database, auth, jobsSchema: undefined, inMemory: false };
  }
  // The same paths `svc backup` and `svc restore` use.
  const { app: path, sessions: sessionPath, jobs: jobsPath } = sqliteFiles(config, manifestDir);
  if (path !== ":memory:") await mkdir(dirname(resolve(path)), { recursive: true });
  if (sessionPath !== ":memory:") await mkdir(dirname(resolve(sessionPath)), { recursive: true });
  if (jobsPath !== ":memory:") await mkdir(dirname(resolve(jobsPath)), { recursive: true });
  const database = openSqlite(path, {
    attach: { [AUTH_SCHEMA]: sessionPath, [JOBS_SCHEMA]: jobsPath },
  });
  const auth: AuthDatabase = { db: database.db, dialect: "sqlite", schema: AUTH_SCHEMA };
  return { ...database, auth, jobsSchema: JOBS_SCHEMA, inMemory: path === ":memory:" };
}

/**
 * Whether a failed job may succeed on a later attempt: not after a client
 * error (4xx other than 408, 409 and 429), which would fail the same way.
 */
function isRetryableJobError(error: unknown): boolean {
  const status = (error as { status?: unknown } | null)?.status;
  if (typeof status !== "number" || status < 400 || status >= 500) return true;
  return status === 408 || status === 409 || status === 429;
}

/**
 * Runs OpenID Connect discovery for every generic provider, so a wrong or
 * unreachable issuer stops the boot with the variable to fix.
 */
async function discoverProviders(providers: readonly OAuthProvider[]): Promise<void> {
  await Promise.all(
    providers.map(async (provider) => {
      if (provider.kind !== "oidc" || !("ready" in provider)) return;
      try {
        await (provider as OAuthProvider & { ready(): Promise<void> }).ready();
      } catch {
        throw new ConfigError(
          `SVC_OIDC_${provider.id.toUpperCase()}_ISSUER`,
          "could not be discovered (no valid /.well-known/openid-configuration at that address)",
        );
      }
    }),
  );
}

/**
 * Boots svc from a parsed configuration: loads the manifest, opens and
 * migrates the database, loads the server functions and listens. Throws
 * `ConfigError` for anything the operator must fix.
 */
export async function startServer(
  config: ServerConfig,
  options: Pick<AppOptions, "onInternalError" | "now"> & {
    /** Where log lines go instead of stdout (tests read them). */
    logDestination?: DestinationStream;
  } = {},
): Promise<RunningServer> {
  const { logDestination, ...appOptions } = options;
  const logger = createLogger({
    level: config.logging.level,
    format: config.logging.format,
    ...(logDestination !== undefined && { destination: logDestination }),
  });
  const logError =
    (message: string) =>
    (error: unknown): void =>
      logger.error({ err: error }, message);
  // The studio's and the OAuth routes' unexpected errors, like the app's.
  const onInternalError = options.onInternalError ?? internalErrorLogger(logger);
  const manifestPath = resolve(config.manifestPath);
  const manifestDir = dirname(manifestPath);
  const manifest = await loadManifestFile(manifestPath);
  const corsOrigins = config.corsOrigins ?? manifest.auth.trustedOrigins;
  if (!config.devMode && manifest.auth.trustedOrigins.length === 0) {
    throw new ConfigError(
      "SVC_MANIFEST",
      "declares no auth.trustedOrigins; outside dev mode at least one trusted origin is required",
    );
  }
  const devTokenFile = join(manifestDir, ".svc", "admin-token");
  const adminTokenFile = config.adminToken === undefined ? devTokenFile : undefined;
  const adminToken = config.adminToken ?? (await readOrCreateDevAdminToken(devTokenFile));

  const database = await openDatabase(config, manifestDir);
  // `/metrics`: made first, so the log, the store and the caches report to it.
  const metrics = createServerMetrics();
  // The durable change log is the store's change bus: every write records
  // its entries in its own transaction, and `/api/sync/pull` reads them.
  const changeLog = createChangeLog({
    db: database.db,
    dialect: database.dialect,
    retention: config.syncRetention,
    observer: metrics.changeLogObserver,
    ...(options.now !== undefined && { now: options.now }),
    // On Postgres every server delivers every server's commits (LISTEN/NOTIFY),
    // while it has a live client (the live callers hold `follow()`).
    ...(config.databaseURL !== undefined && {
      listen: { connectionString: config.databaseURL, onDemand: true },
      onError: logError("sync: change log listener failed"),
    }),
  });
  let store: Store;
  // Background writes (jobs, pruning) that find the disk full mark the
  // storage full too; the app's readiness check exists once the app does.
  let observeStorage: (error: unknown) => void = () => undefined;
  let stopPruning = (): void => undefined;
  let stopCallerWatch = (): void => undefined;
  const jobs = createJobQueue({
    db: database.db,
    dialect: database.dialect,
    schema: database.jobsSchema,
    ...(options.now !== undefined && { now: options.now }),
  });
  try {
    // Compiles the policies too: a bad one stops the boot here.
    store = createStore({
      db: database.db,
      // Reads outside a transaction: the read pool (a read-only connection on a SQLite file).
      readDb: database.readDb,
      dialect: database.dialect,
      manifest,
      changeBus: changeLog,
      ...config.storeLimits,
      // Page cursors are signed with a key derived from the deployment's
      // secret, so every server of one database accepts the others' cursors.
      cursorSecret: config.auth.secret ?? adminToken,
      onCommit: metrics.recordCommit,
    });
  } catch (error) {
    await database.close();
    throw error;
  }
  try {
    const auth = createAuth({
      store,
      database: database.auth,
      // svc's own variable when set; else the admin token, a secret every
      // deployment already has (HKDF keeps the derived keys apart).
      secret: config.auth.secret ?? adminToken,
      devMode: config.devMode,
      sessionLifetimeSecs: config.auth.sessionLifetimeSecs,
      email: config.auth.email,
      ...(config.auth.sms !== undefined && { sms: config.auth.sms }),
      ...(config.auth.captcha !== undefined && { captcha: config.auth.captcha }),
      jwt: config.auth.jwt,
      ...(config.auth.upstreamJWT !== undefined && { upstreamJWT: config.auth.upstreamJWT }),
      ...(options.now !== undefined && { now: options.now }),
      logError: (message, error) => logger.error({ err: error }, message),
    });
    // The OAuth state lives in the application database (never the
    // in-memory session store), so a handshake survives a restart.
    // Without an API key every billing route answers 501 and nobody has entitlements.
    const billingOn = config.billing.apiKey !== undefined;
    // A configured processor needs somewhere to keep the customer id.
    if (billingOn) checkBillingUser(manifest);
    let dispatchBillingEvent: ((event: BillingEvent, replay: boolean) => Promise<void>) | undefined;
    const billing = createBilling({
      store,
      db: database.db,
      dialect: database.dialect,
      apiKey: config.billing.apiKey,
      webhookSecret: config.billing.webhookSecret,
      apiBase: config.billing.apiBase,
      allowedPrices: config.billing.allowedPrices,
      publicURL: config.publicURL,
      trustedOrigins: corsOrigins,
      ...(options.now !== undefined && { now: options.now }),
      // The application's billing hooks (function files), bound below.
      onEvent: (event, { replay }) => dispatchBillingEvent?.(event, replay) ?? Promise.resolve(),
      // Other servers drop their cached entitlements of the user (below).
      onEntitlementsChanged: (userId) => auth.announceCallerChange(userId, "entitlements-changed"),
      logError: (message, error) => logger.error({ err: error }, `billing: ${message}`),
    });
    await store.migrate({
      packages: [
        ...auth.migrations,
        oauthStateMigrations(),
        ...billing.migrations,
        syncMigrations(),
        jobsMigrations({ schema: database.jobsSchema }),
        filesMigrations(),
        idempotencyMigrations(),
        // The studio's sign-ins, beside auth-core's sessions.
        studioMigrations(auth.database.schema),
      ],
    });
    // Checks every write of a `file` field from here on (ready, owned by the writer).
    const files = createFiles({
      store,
      db: database.db,
      blobs: createBlobStoreFromConfig(config.files, {
        defaultDir: defaultFilesDir(manifestDir),
        secret: config.auth.secret ?? adminToken,
        ...(options.now !== undefined && { now: options.now }),
      }),
      urlPrefix: config.files.urlPrefix,
      maxBytes: config.files.maxBytes,
      ...(config.files.allowedContentTypes !== undefined && {
        allowedContentTypes: config.files.allowedContentTypes,
      }),
      ...(options.now !== undefined && { now: options.now }),
    });
    // On Postgres: LISTEN is active (or the boot fails) before any subscription is served.
    await changeLog.ready();
    stopPruning = startPruning(changeLog, {
      onError: (error) => {
        observeStorage(error);
        logger.error({ err: error }, "sync: pruning the change log failed");
      },
    });
    await discoverProviders(config.oauth);
    const functions = await loadFunctions(resolve(manifestDir, manifest.functions));
    // Scheduled calls run through the runner as their scheduling caller; a
    // client error (bad arguments, a denied policy) is not retried.
    let worker: JobWorker | undefined;
    // One runner (a second would register every hook twice). Its store
    // records reads only inside a live query's run, for `sync` below.
    const tracker = createReadTracker(store);
    const runner = createFunctionRunner({
      store: tracker.store,
      functions,
      scheduler: createQueueScheduler(jobs, { onScheduled: () => worker?.wake() }),
      // ctx.email: the SVC_EMAIL_* provider, or in dev mode the auth dev inbox.
      email: createAppEmailSender(config.email, config.auth.email.devInbox),
      ...(options.now !== undefined && { now: options.now }),
      // ctx.log, and emails that failed after a commit: the server's log.
      log: logger,
      logError: (message, error) => logger.error({ err: error }, message),
    });
    worker = createJobWorker({
      queue: jobs,
      // Functions with `cron` run on their schedule, each occurrence once.
      cron: runner.schedules().map((schedule) => ({
        name: `fn.${schedule.name}`,
        schedule: schedule.cron,
        fn: schedule.name,
      })),
      // Every line logged while a job runs carries its id and name.
      run: metrics.instrumentJobRun(async (job) => {
        await runWithLogContext({ jobId: job.id, job: job.name }, () =>
          runner.run(job.name, job.args, job.auth),
        );
      }),
      isRetryable: isRetryableJobError,
      onError: (error) => {
        observeStorage(error);
        logger.error({ err: error }, "jobs: worker failed");
      },
      ...(options.now !== undefined && { now: options.now }),
    });
    const sync = createSync({
      store,
      log: changeLog,
      queries: liveQueryRunner(functions, runner, tracker),
    });
    dispatchBillingEvent = (event, replay) => runner.dispatchBillingEvent({ event, replay });
    const library = await loadDocs();
    // Listen first, so the agent tools can link to the port actually bound;
    // the app is attached synchronously after, before any request is read.
    const server = createServer();
    server.on("clientError", answerClientError);
    const boundPort = await listenOnPort(server, config.port, config.host, "the HTTP (SVC_PORT)");
    // The spec's order: admin token, `pk.` API key, JWT, `svc_` session.
    // With billing configured, every signed-in caller carries its
    // entitlements (cached per user); without it nothing is looked up.
    const resolvers: BearerResolver[] = [
      adminTokenResolver(adminToken),
      ...[apiKeyResolver(auth), ...auth.jwtResolvers(), sessionResolver(auth)].map((resolve) =>
        billingOn ? entitledResolver(billing, resolve) : resolve,
      ),
    ];
    const resolveSessionCookie = billingOn
      ? async (token: string) => withEntitlements(billing, await auth.resolveSession(token))
      : (token: string) => auth.resolveSession(token);
    // Where callers come from, for the HTTP gate and the live transports
    // (`/ws`, `/events`, rooms) alike: both resolve them through
    // @svc/schema's resolveCaller, so a credential means the same caller on
    // every door. Browser origins allowed by CORS may connect live. Live
    // callers are re-checked when credentials or memberships change, on this
    // server and (through the database) on others.
    const authenticate: CallerSources = {
      resolvers,
      cookie: { name: SESSION_COOKIE, resolve: resolveSessionCookie },
    };
    const callers = createLiveCallers({
      authenticate,
      maxPerUser: config.live.maxConnectionsPerUser,
      maxPerIp: config.live.maxConnectionsPerIp,
      clientIp: liveClientIp(config.trustProxy),
      onError: logError("sync: live caller check failed"),
      // On Postgres, other servers' commits are read only while a live client is connected.
      hold: () => changeLog.follow(),
      ...(options.now !== undefined && { now: options.now }),
    });
    // Read at each scrape: the caches' counters, and on Postgres the
    // cross-server tail (held back, pending, listening).
    metrics.watchCaches({
      session: () => auth.cacheStats().session,
      api_key: () => auth.cacheStats().apiKey,
      ...(billingOn && { entitlements: () => billing.entitlementCacheStats() }),
    });
    if (config.databaseURL !== undefined) metrics.watchFeed(() => changeLog.feedStatus());
    metrics.watchLive(() => callers.connections);
    metrics.watchJobs(() => jobs.counts());
    // The studio's Metrics page: the registry sampled every 10 s, the last hour kept.
    const metricsHistory = createMetricsHistory({
      registry: metrics.registry,
      ...(options.now !== undefined && { now: options.now }),
    });
    // Registered before the live callers' watch, so a member's connections
    // are re-checked against the entitlements just read again.
    const stopEntitlementWatch = billingOn
      ? auth.onRevoked(({ userId, reason, local }) => {
          if (reason === "entitlements-changed" && !local) billing.forgetEntitlements(userId);
        })
      : () => undefined;
    const stopLiveCallerWatch = watchCallerChanges({
      auth,
      changes: changeLog,
      manifest,
      callers,
      onError: logError("sync: live caller check failed"),
    });
    stopCallerWatch = () => {
      stopEntitlementWatch();
      stopLiveCallerWatch();
    };
    const live = await startLiveTransports({
      main: server,
      port: config.port,
      host: config.host,
      sync,
      authenticate,
      callers,
      trustedOrigins: config.devMode ? true : corsOrigins,
      rooms: runner.rooms(),
      joinExistsResolver: () => cachedExistsResolver(store.systemReader()),
      ...(config.databaseURL !== undefined && { databaseURL: config.databaseURL }),
      logError: (message, error) => logger.error({ err: error }, message),
    }).catch(async (error: unknown) => {
      await new Promise((resolveClose) => server.close(resolveClose));
      throw error;
    });
    const app = createApp({
      metrics,
      store,
      files,
      events: live.events,
      functions: runner,
      authenticate: {
        resolvers,
        cookie: {
          name: SESSION_COOKIE,
          resolve: resolveSessionCookie,
          // The gate clears a stale cookie; a live connection is refused.
          clear: () => clearedSessionCookie(config.auth.cookie),
        },
      },
      oauth: {
        auth,
        providers: config.oauth,
        states: createStateStore({
          db: database.db,
          dialect: database.dialect,
          secret: config.auth.secret ?? adminToken,
          ...(options.now !== undefined && { now: options.now }),
        }),
        cookie: config.auth.cookie,
        trustedOrigins: corsOrigins,
        publicURL: config.publicURL,
        onError: onInternalError,
        // The sign-in endpoints' per-address limit, sharing their counters.
        ...(config.auth.rateLimit && {
          rateLimit: createRateLimits({
            database: auth.database,
            ...(options.now !== undefined && { now: options.now }),
          }).perIp,
        }),
      },
      billing: { core: billing, publicURL: config.publicURL },
      jobs,
      sync,
      auth: {
        core: auth,
        router: {
          cookie: config.auth.cookie,
          trustedOrigins: corsOrigins,
          publicURL: config.publicURL,
          rateLimit: config.auth.rateLimit
            ? { ...(options.now !== undefined && { now: options.now }) }
            : false,
          ...(config.auth.email.magicCodeSubject !== undefined && {
            magicCodeSubject: config.auth.email.magicCodeSubject,
          }),
        },
      },
      // The spec: the manifest's trusted origins feed each gate unless its own variable overrides it.
      csrfOrigins: config.csrfOrigins ?? manifest.auth.trustedOrigins,
      publicURL: config.publicURL,
      devMode: config.devMode,
      corsOrigins,
      inMemory: database.inMemory,
      bodyLimitBytes: config.bodyLimitBytes,
      trustProxy: config.trustProxy,
      agent: {
        library,
        publicURL: config.publicURL,
        toolBaseURL: config.publicURL ?? `http://localhost:${boundPort}`,
        trustedOrigins: config.devMode ? ["*"] : corsOrigins,
      },
      // The admin studio: the server's own store, runner, auth tables and queue.
      studio: {
        store,
        functions: runner,
        auth,
        jobs,
        adminToken,
        devMode: config.devMode,
        bodyLimitBytes: config.bodyLimitBytes,
        // Its sign-in counts against the sign-in endpoints' per-address limit.
        ...(config.auth.rateLimit && {
          signInLimiter: createRateLimits({
            database: auth.database,
            ...(options.now !== undefined && { now: options.now }),
          }).perIp,
        }),
        ...(options.now !== undefined && { now: options.now }),
        onInternalError,
        metricsHistory,
        // The Live page: the open connections, and a way to close one.
        live: callers,
        // The Logs page: the last requests, in memory (SVC_STUDIO_LOG_ENTRIES).
        ...(config.studio.logEntries > 0 && {
          requestLog: createRequestLog({
            capacity: config.studio.logEntries,
            ...(options.now !== undefined && { now: options.now }),
          }),
        }),
      },
      // The app's own front end, when it ships one (looked for once, at boot).
      ...(hasPublicDir(join(manifestDir, "public")) && { publicDir: join(manifestDir, "public") }),
      logger,
      accessLog: config.logging.accessLog,
      ...appOptions,
    });
    observeStorage = app.storage.observe;
    server.on("request", app.express);
    worker.start();
    metricsHistory.start();
    const port = boundPort;
    const host = config.host === undefined || config.host === "0.0.0.0" ? "localhost" : config.host;
    return {
      url: `http://${host.includes(":") ? `[${host}]` : host}:${port}`,
      port,
      livePorts: live.ports,
      store,
      auth,
      jobs,
      manifest,
      adminToken,
      adminTokenFile,
      logger,
      warnings: [
        ...config.warnings,
        ...config.auth.warnings,
        ...(config.devMode ? policyLintWarnings(manifest) : []),
        ...(config.databaseURL === undefined && config.auth.sessionDbPath === undefined
          ? [
              "sessions, API keys, codes and rate limits are kept in memory (SVC_SESSION_DB is unset): everyone is signed out and every API key is gone when the server stops",
            ]
          : []),
      ],
      async close(options = {}) {
        const drainMs = (options.drainSeconds ?? config.drainSeconds) * 1000;
        // Upgraded sockets are closed first (1001), or the server would wait on them.
        // (At least 100 ms, so a close frame is flushed before a socket is cut.)
        const sockets = live.close(Math.max(drainMs, 100));
        const closed = new Promise<void>((resolveClose) => server.close(() => resolveClose()));
        server.closeIdleConnections();
        const timer = setTimeout(() => server.closeAllConnections(), drainMs);
        await Promise.all([closed, sockets]);
        clearTimeout(timer);
        // Running jobs finish (or keep their lease for another server) first.
        await worker?.stop({ drainMs });
        metricsHistory.stop();
        stopPruning();
        stopCallerWatch();
        callers.close();
        await changeLog.close();
        await auth.close();
        await store.close();
      },
    };
  } catch (error) {
    stopPruning();
    stopCallerWatch();
    await changeLog.close();
    await store.close();
    throw error;
  }
}
