import { dirname, resolve } from "node:path";
import { loadDocs } from "@svc/agent-docs";
import type { DestinationStream } from "pino";
import type { AppOptions } from "./app.js";
import { settleBoot } from "./boot-checks.js";
import type { ServerConfig } from "./config.js";
import { createServerMetrics } from "./http/metrics.js";
import { internalErrorLogger } from "./logging/internal-error.js";
import { createLogger } from "./logging/logger.js";
import { loadManifestFile } from "./manifest-file.js";
import { discoverProviders } from "./oauth-discovery.js";
import { openRuntime } from "./open-runtime.js";
import { type RunningServer, serverURL } from "./running-server.js";
import { type ServerHTTP, serveHTTP } from "./server-http.js";
import { type ServerModules, serverModules } from "./server-modules.js";
import { studioMigrations } from "./studio/studio-session-table.js";

export type { RunningServer } from "./running-server.js";

/**
 * Boots svc from a parsed configuration, in this order: the manifest and
 * the settings it must agree with; the runtime (database, change log,
 * store); every package's module, their tables migrated in one transaction,
 * then started; then HTTP and the live transports. Throws `ConfigError` for
 * anything the operator must fix, with nothing left open.
 */
export async function startServer(
  config: ServerConfig,
  options: Pick<AppOptions, "onInternalError" | "now"> & {
    /** Where log lines go instead of stdout (tests read them). */
    logDestination?: DestinationStream;
  } = {},
): Promise<RunningServer> {
  const now = options.now ?? Date.now;
  const logger = createLogger({ ...config.logging, destination: options.logDestination });
  const onInternalError = options.onInternalError ?? internalErrorLogger(logger);
  const manifestDir = dirname(resolve(config.manifestPath));
  const manifest = await loadManifestFile(resolve(config.manifestPath));
  const boot = await settleBoot(config, manifest, manifestDir);
  // `/metrics`: made first, so the log, the store and the caches report to it.
  const metrics = createServerMetrics();
  const base = await openRuntime(config, {
    manifest,
    manifestDir,
    secret: config.auth.secret ?? boot.adminToken,
    log: logger,
    now,
    changeLogObserver: metrics.changeLogObserver,
    onCommit: metrics.recordCommit,
  });
  // Background writes (jobs, pruning) that find the disk full mark the storage full too.
  let observeStorage: (error: unknown) => void = () => undefined;
  let modules: ServerModules | undefined;
  let http: ServerHTTP | undefined;
  try {
    modules = await serverModules(base, config, {
      ...boot,
      manifest,
      manifestDir,
      metrics,
      onInternalError,
      observeStorage: (error) => observeStorage(error),
    });
    const { composed, auth } = modules;
    // The studio's sign-ins live beside auth-core's sessions.
    const studioTables = studioMigrations(auth.database.schema);
    await base.runtime.store.migrate({ packages: [...composed.migrations, studioTables] });
    await composed.start();
    await discoverProviders(config.oauth);
    http = await serveHTTP({
      config,
      boot,
      manifest,
      manifestDir,
      base,
      modules,
      metrics,
      logger,
      now,
      library: await loadDocs(),
      onInternalError,
      observeStorage: (observe) => {
        observeStorage = observe;
      },
    });
    const serving = http;
    return {
      url: serverURL(config.host, http.port),
      port: http.port,
      livePorts: http.livePorts,
      store: base.runtime.store,
      auth,
      jobs: modules.jobs,
      manifest,
      adminToken: boot.adminToken,
      adminTokenFile: boot.adminTokenFile,
      logger,
      warnings: boot.warnings,
      async close(options = {}) {
        const drainMs = (options.drainSeconds ?? config.drainSeconds) * 1000;
        await serving.close(drainMs);
        // Last first: running jobs finish (or keep their lease for another server) before the rest.
        await composed.close({ drainMs });
        await base.close();
      },
    };
  } catch (error) {
    await http?.close(0);
    await modules?.composed.close({ drainMs: 0 }).catch(() => undefined);
    await base.close();
    throw error;
  }
}
