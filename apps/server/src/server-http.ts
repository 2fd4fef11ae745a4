import { createServer } from "node:http";
import { join } from "node:path";
import type { DocsLibrary } from "@svc/agent-docs";
import { clearedSessionCookie, SESSION_COOKIE } from "@svc/auth-core/express";
import type { Manifest } from "@svc/schema";
import { type AppOptions, createApp } from "./app.js";
import type { BootSettings } from "./boot-checks.js";
import type { ServerConfig } from "./config.js";
import { hasPublicDir } from "./http/app-pages.js";
import { answerClientError } from "./http/client-error.js";
import { watchServerMetrics } from "./http/metric-sources.js";
import type { ServerMetrics } from "./http/metrics.js";
import { type LivePorts, listenOnPort } from "./live-transports.js";
import type { ServerLogger } from "./logging/logger.js";
import type { ServerRuntime } from "./open-runtime.js";
import { drainHTTP } from "./running-server.js";
import { startServerLive } from "./server-live.js";
import type { ServerModules } from "./server-modules.js";
import { serverStudio } from "./studio/server-studio.js";

/** What a server serves over HTTP, once listening. */
export interface ServerHTTP {
  readonly port: number;
  readonly livePorts: LivePorts;
  /** Drains requests and live connections (up to `drainMs`), then stops the studio's sampler and the caller checks. */
  close(drainMs: number): Promise<void>;
}

/**
 * Listens, then attaches the app: the modules' routes behind the gate, the
 * live transports (authenticated from the same sources as HTTP requests),
 * the agent API, the studio and the app's own pages. Listening comes first
 * so the agent tools can link to the port actually bound; the app is
 * attached synchronously after, before any request is read.
 */
export async function serveHTTP(input: {
  readonly config: ServerConfig;
  readonly boot: BootSettings;
  readonly manifest: Manifest;
  readonly manifestDir: string;
  readonly base: ServerRuntime;
  readonly modules: ServerModules;
  readonly library: DocsLibrary;
  readonly metrics: ServerMetrics;
  readonly logger: ServerLogger;
  readonly now: () => number;
  readonly onInternalError: NonNullable<AppOptions["onInternalError"]>;
  /** Background failures a full disk explains take the server out of readiness. */
  readonly observeStorage: (observe: (error: unknown) => void) => void;
}): Promise<ServerHTTP> {
  const { config, boot, base, modules, metrics, now } = input;
  const { composed, auth } = modules;
  const server = createServer();
  server.on("clientError", answerClientError);
  const port = await listenOnPort(server, config.port, config.host, "the HTTP (SVC_PORT)");
  // One source of callers for the HTTP gate and the live transports alike.
  const sessionCookie = {
    name: SESSION_COOKIE,
    resolve: async (token: string) => composed.decorate(await auth.resolveSession(token)),
    // The gate clears a stale cookie; a live connection is refused.
    clear: () => clearedSessionCookie(config.auth.cookie),
  };
  const live = await startServerLive({
    ...input,
    server,
    store: base.runtime.store,
    changeLog: base.changeLog,
    auth,
    authenticate: { resolvers: composed.resolvers, cookie: sessionCookie },
    corsOrigins: boot.corsOrigins,
  }).catch(async (error: unknown) => {
    await new Promise((resolveClose) => server.close(resolveClose));
    throw error;
  });
  const { callers, transports } = live;
  const postgres = config.databaseURL !== undefined;
  watchServerMetrics(metrics, { ...modules, changeLog: base.changeLog, callers, postgres });
  const studio = serverStudio({
    ...input,
    ...modules,
    store: base.runtime.store,
    callers,
    adminToken: boot.adminToken,
    signInLimiter: modules.signInLimiter?.(),
  });
  const publicDir = join(input.manifestDir, "public");
  const app = createApp({
    modules: composed,
    store: base.runtime.store,
    sessionCookie,
    events: transports.events,
    filesURLPrefix: modules.files.urlPrefix,
    devMode: config.devMode,
    corsOrigins: boot.corsOrigins,
    csrfOrigins: boot.csrfOrigins,
    inMemory: base.inMemory,
    trustProxy: config.trustProxy,
    agent: {
      library: input.library,
      publicURL: config.publicURL,
      toolBaseURL: config.publicURL ?? `http://localhost:${port}`,
      trustedOrigins: config.devMode ? ["*"] : boot.corsOrigins,
    },
    studio: studio.options,
    // The app's own front end, when it ships one (looked for once, at boot).
    ...(hasPublicDir(publicDir) && { publicDir }),
    logger: input.logger,
    accessLog: config.logging.accessLog,
    metrics,
    now,
    onInternalError: input.onInternalError,
  });
  input.observeStorage(app.storage.observe);
  server.on("request", app.express);
  studio.metricsHistory.start();
  return {
    port,
    livePorts: transports.ports,
    async close(drainMs) {
      await drainHTTP(server, transports, drainMs);
      studio.metricsHistory.stop();
      live.stop();
    },
  };
}
