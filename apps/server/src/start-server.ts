import { mkdir } from "node:fs/promises";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { dirname, join, resolve } from "node:path";
import { loadDocs } from "@svc/agent-docs";
import { createFunctionRunner, loadFunctions } from "@svc/functions";
import type { Manifest } from "@svc/schema";
import { createStore, type Store } from "@svc/store";
import { openPostgres } from "@svc/store/pg";
import { openSqlite } from "@svc/store/sqlite";
import { type AppOptions, createApp } from "./app.js";
import { adminTokenResolver } from "./auth/resolve-bearer.js";
import { ConfigError, type ServerConfig } from "./config.js";
import { readOrCreateDevAdminToken } from "./dev-admin-token.js";
import { loadManifestFile } from "./manifest-file.js";

/** A running server. */
export interface RunningServer {
  /** `http://host:port` of the listening socket. */
  readonly url: string;
  readonly port: number;
  readonly store: Store;
  readonly manifest: Manifest;
  /** The admin token in force (generated in dev mode when unset). */
  readonly adminToken: string;
  /** Where the dev-mode admin token is kept; undefined when `SVC_ADMIN_TOKEN` is set. */
  readonly adminTokenFile: string | undefined;
  /**
   * Stops accepting connections, waits for in-flight requests up to
   * `drainSeconds` (default `SVC_DRAIN_SECS`), then closes the database.
   */
  close(options?: { drainSeconds?: number }): Promise<void>;
}

async function openDatabase(config: ServerConfig, manifestDir: string) {
  if (config.databaseURL !== undefined) {
    return { ...openPostgres(config.databaseURL), inMemory: false };
  }
  const path = config.dbPath ?? join(manifestDir, ".svc", "data.db");
  if (path !== ":memory:") await mkdir(dirname(resolve(path)), { recursive: true });
  return { ...openSqlite(path), inMemory: path === ":memory:" };
}

/**
 * Boots svc from a parsed configuration: loads the manifest, opens and
 * migrates the database, loads the server functions and listens. Throws
 * `ConfigError` for anything the operator must fix.
 */
export async function startServer(
  config: ServerConfig,
  options: Pick<AppOptions, "onInternalError" | "now"> = {},
): Promise<RunningServer> {
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
  let store: Store;
  try {
    // Compiles the policies too: a bad one stops the boot here.
    store = createStore({ db: database.db, dialect: database.dialect, manifest });
  } catch (error) {
    await database.close();
    throw error;
  }
  try {
    await store.migrate();
    const functions = await loadFunctions(resolve(manifestDir, manifest.functions));
    const runner = createFunctionRunner({ store, functions });
    const library = await loadDocs();
    // Listen first, so the agent tools can link to the port actually bound;
    // the app is attached synchronously after, before any request is read.
    const server = createServer();
    await new Promise<void>((resolveListen, reject) => {
      server.once("error", reject);
      server.listen({ port: config.port, host: config.host }, resolveListen);
    });
    const boundPort = (server.address() as AddressInfo).port;
    const app = createApp({
      store,
      functions: runner,
      resolvers: [adminTokenResolver(adminToken)],
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
      ...options,
    });
    server.on("request", app.express);
    const port = boundPort;
    const host = config.host === undefined || config.host === "0.0.0.0" ? "localhost" : config.host;
    return {
      url: `http://${host.includes(":") ? `[${host}]` : host}:${port}`,
      port,
      store,
      manifest,
      adminToken,
      adminTokenFile,
      async close(options = {}) {
        const drainMs = (options.drainSeconds ?? config.drainSeconds) * 1000;
        const closed = new Promise<void>((resolveClose) => server.close(() => resolveClose()));
        server.closeIdleConnections();
        const timer = setTimeout(() => server.closeAllConnections(), drainMs);
        await closed;
        clearTimeout(timer);
        await store.close();
      },
    };
  } catch (error) {
    await store.close();
    throw error;
  }
}
