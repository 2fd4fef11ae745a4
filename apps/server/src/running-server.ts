import type { Server } from "node:http";
import type { Auth } from "@svc/auth-core";
import type { JobQueue } from "@svc/jobs";
import type { Manifest } from "@svc/schema";
import type { Store } from "@svc/store";
import type { LivePorts } from "./live-transports.js";
import type { ServerLogger } from "./logging/logger.js";

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

/** The address a server announces: `localhost` for every interface, brackets for IPv6. */
export function serverURL(host: string | undefined, port: number): string {
  const shown = host === undefined || host === "0.0.0.0" ? "localhost" : host;
  return `http://${shown.includes(":") ? `[${shown}]` : shown}:${port}`;
}

/**
 * Stops `server` taking connections and waits for what is in flight: live
 * sockets are closed first (1001; at least 100 ms so a close frame is
 * flushed), idle keep-alive connections at once, busy ones after `drainMs`.
 */
export async function drainHTTP(
  server: Server,
  live: { close(timeoutMs: number): Promise<void> },
  drainMs: number,
): Promise<void> {
  const sockets = live.close(Math.max(drainMs, 100));
  const closed = new Promise<void>((resolveClose) => server.close(() => resolveClose()));
  server.closeIdleConnections();
  const timer = setTimeout(() => server.closeAllConnections(), drainMs);
  await Promise.all([closed, sockets]);
  clearTimeout(timer);
}
