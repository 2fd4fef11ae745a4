import type { Server } from "node:http";
import type { Auth } from "@svc/auth-core";
import type { Manifest } from "@svc/schema";
import type { CallerSources } from "@svc/schema/http";
import type { Store } from "@svc/store";
import {
  type ChangeLog,
  cachedExistsResolver,
  createLiveCallers,
  type LiveCallers,
} from "@svc/sync";
import type { ServerConfig } from "./config.js";
import { liveClientIp, watchCallerChanges } from "./live-callers.js";
import { type LiveTransports, startLiveTransports } from "./live-transports.js";
import type { ServerLogger } from "./logging/logger.js";
import type { ServerModules } from "./server-modules.js";

/** The live side of a running server. */
export interface ServerLive {
  readonly transports: LiveTransports;
  /** Every open live connection's caller (the studio's Live page lists them). */
  readonly callers: LiveCallers;
  /** Stops re-checking callers and drops the registry (after the transports closed). */
  stop(): void;
}

/**
 * Starts the live transports (WebSocket, SSE, rooms) on the main server and
 * their own ports. Their callers authenticate like HTTP requests (the same
 * sources) and are re-checked when credentials or memberships change, on
 * this server and, through the database, on others.
 */
export async function startServerLive(input: {
  readonly server: Server;
  readonly config: ServerConfig;
  readonly manifest: Manifest;
  readonly store: Store;
  readonly changeLog: ChangeLog;
  readonly auth: Auth;
  readonly modules: ServerModules;
  readonly authenticate: CallerSources;
  readonly corsOrigins: readonly string[];
  readonly logger: ServerLogger;
  readonly now: () => number;
}): Promise<ServerLive> {
  const { config, logger } = input;
  const onError = (error: unknown) =>
    logger.error({ err: error }, "sync: live caller check failed");
  const callers = createLiveCallers({
    authenticate: input.authenticate,
    maxPerUser: config.live.maxConnectionsPerUser,
    maxPerIp: config.live.maxConnectionsPerIp,
    clientIp: liveClientIp(config.trustProxy),
    onError,
    now: input.now,
    // On Postgres, other servers' commits are read only while a live client is connected.
    hold: () => input.changeLog.follow(),
  });
  const stopWatch = watchCallerChanges({
    auth: input.auth,
    changes: input.changeLog,
    manifest: input.manifest,
    callers,
    onError,
  });
  try {
    const transports = await startLiveTransports({
      main: input.server,
      port: config.port,
      host: config.host,
      sync: input.modules.sync,
      authenticate: input.authenticate,
      callers,
      trustedOrigins: config.devMode ? true : input.corsOrigins,
      rooms: input.modules.runner.rooms(),
      joinExistsResolver: () => cachedExistsResolver(input.store.systemReader()),
      ...(config.databaseURL !== undefined && { databaseURL: config.databaseURL }),
      logError: (message, error) => logger.error({ err: error }, message),
    });
    return {
      transports,
      callers,
      stop() {
        stopWatch();
        callers.close();
      },
    };
  } catch (error) {
    stopWatch();
    callers.close();
    throw error;
  }
}
