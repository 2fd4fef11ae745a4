import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Duplex } from "node:stream";
import type { ExistsResolver } from "@svc/policy-engine";
import type { RoomLogic } from "@svc/schema";
import { type CallerSources, sendErrorResponse } from "@svc/schema/http";
import {
  attachShards,
  attachWebSocket,
  createEventStreams,
  createShardCluster,
  type EventStreams,
  type LiveCallers,
  type ShardHub,
  type Sync,
  type WebSocketHub,
} from "@svc/sync";
import { ConfigError } from "./config.js";
import { ServerError, toErrorResponse } from "./errors.js";

/** The ports the live transports listen on besides the main one. */
export interface LivePorts {
  /** WebSocket subscriptions (`/ws`): `SVC_PORT + 1`. */
  readonly ws: number;
  /** Server-Sent Events (`/events`): `SVC_PORT + 2`. */
  readonly events: number;
  /** Realtime shards (`/shard/<room>`): `SVC_PORT + 3`. */
  readonly shards: number;
}

/** What the live transports are built from. */
export interface LiveTransportOptions {
  /** The main HTTP server: `/ws` upgrades are served on it too (one proxy rule suffices). */
  readonly main: Server;
  /** The main port as configured: 0 gives every side listener a free port as well. */
  readonly port: number;
  readonly host: string | undefined;
  readonly sync: Sync;
  /** Where callers come from: the bearer resolvers and session cookie of the HTTP gate. */
  readonly authenticate: CallerSources;
  /**
   * The callers of every open live connection, shared by the three
   * transports: one per-user and per-address bound across them, and the
   * registry credential changes are checked against (`watchCallerChanges`).
   */
  readonly callers: LiveCallers;
  readonly trustedOrigins: true | readonly string[];
  /** Room logic by room kind (the function runner's `rooms()`). */
  readonly rooms?: ReadonlyMap<string, RoomLogic>;
  /**
   * A fresh `exists(...)` resolver for each room join. Joins read the
   * current rows rather than the fan-out's shared cache: on Postgres that
   * cache learns of a commit only when the change feed brings it, so a join
   * right after the write that admits the caller would still be refused.
   */
  readonly joinExistsResolver: () => ExistsResolver;
  /**
   * `DATABASE_URL` on Postgres: rooms are then shared by every server on
   * that database (each instance runs on one of them; see @svc/sync's
   * shards). Unset (SQLite): rooms live in this process.
   */
  readonly databaseURL?: string;
  /** Receives the transports' unexpected errors with a short label. Default `console.error`. */
  readonly logError?: (message: string, error: unknown) => void;
}

/** The running live transports. */
export interface LiveTransports {
  /** The side ports actually bound. */
  readonly ports: LivePorts;
  /** The SSE handler; the main app serves it at `/events`. */
  readonly events: EventStreams;
  /** Closes sockets (1001) and streams, then the side listeners. */
  close(timeoutMs: number): Promise<void>;
}

function notFound(res: ServerResponse): void {
  const error = new ServerError("ROUTE_NOT_FOUND", "This port serves only its live transport.");
  sendErrorResponse(res, toErrorResponse(error));
}

/** Refuses upgrades of the main server that no transport serves. */
function refuseUnserved(req: IncomingMessage, socket: Duplex): void {
  const url = req.url ?? "";
  if (url === "/ws" || url.startsWith("/ws?") || url.startsWith("/shard/")) return;
  socket.on("error", () => socket.destroy());
  socket.end("HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Length: 0\r\n\r\n");
}

function pathIs(req: IncomingMessage, path: string): boolean {
  const url = req.url ?? "";
  return url === path || url.startsWith(`${path}?`);
}

/**
 * Listens on `port` and answers the port bound. A port already in use (the
 * usual cause: a second svc app on the default block 4321-4324) is a
 * `ConfigError` naming `SVC_PORT`, with the next block of four to try.
 * `name` says which of the server's ports it is ("the HTTP" for `SVC_PORT`
 * itself, "the WebSocket (SVC_PORT + 1)", …).
 */
export async function listenOnPort(
  server: Server,
  port: number,
  host: string | undefined,
  name: string,
  mainPort: number = port,
): Promise<number> {
  await new Promise<void>((resolveListen, reject) => {
    server.once("error", (error: NodeJS.ErrnoException) =>
      reject(
        error.code === "EADDRINUSE"
          ? new ConfigError(
              "SVC_PORT",
              `${name} port ${port} is already in use (another svc app?); each server takes four ports, SVC_PORT to SVC_PORT + 3 (now ${mainPort}-${mainPort + 3}): stop the other one or choose another block, e.g. SVC_PORT=${mainPort + 4}`,
            )
          : error,
      ),
    );
    server.listen({ port, host }, resolveListen);
  });
  return (server.address() as AddressInfo).port;
}

/**
 * Starts the spec's live transports, each on the main port (one proxy rule
 * suffices) and on its own: WebSocket at `/ws` (`SVC_PORT + 1`), SSE at
 * `/events` (served by the app; `SVC_PORT + 2`), realtime shards at
 * `/shard/<room>` (`SVC_PORT + 3`). With `SVC_PORT=0` each side listener
 * takes a free port of its own (`ports` names them). A side port already
 * in use stops the boot with a `ConfigError`.
 */
export async function startLiveTransports(options: LiveTransportOptions): Promise<LiveTransports> {
  const { sync, authenticate, callers, trustedOrigins, port, host } = options;
  const wsPort = port === 0 ? 0 : port + 1;
  const eventsPort = port === 0 ? 0 : port + 2;
  const shardsPort = port === 0 ? 0 : port + 3;
  if (shardsPort > 65535) {
    throw new ConfigError(
      "SVC_PORT",
      `must leave room for the live transports' ports (${port} + 3 > 65535)`,
    );
  }
  const logError =
    options.logError ??
    ((message: string, error: unknown) => console.error(`svc: ${message}:`, error));
  // On Postgres a room's members meet whichever server they came through
  // (the boot fails if the relay cannot connect, as it does for the change feed).
  const cluster =
    options.databaseURL === undefined
      ? undefined
      : createShardCluster({
          connectionString: options.databaseURL,
          onError: (error: unknown) => logError("shards: relay failed", error),
        });
  await cluster?.ready().catch(async (error: unknown) => {
    await cluster.close();
    throw error;
  });
  const onError = (error: unknown) => logError("sync: live transport failed", error);
  const events = createEventStreams({ sync, authenticate, callers, trustedOrigins, onError });
  const hubOptions = { sync, authenticate, callers, trustedOrigins, onError };
  const hubs: WebSocketHub[] = [attachWebSocket(options.main, { ...hubOptions, shared: true })];
  const wsServer = createServer((_req, res) => notFound(res));
  hubs.push(attachWebSocket(wsServer, hubOptions));
  const eventsServer = createServer((req, res) => {
    if (pathIs(req, "/events")) events.handle(req, res);
    else notFound(res);
  });
  const shardOptions = {
    policies: sync.policies.compiled,
    authenticate,
    callers,
    trustedOrigins,
    ...(options.rooms !== undefined && { logic: options.rooms }),
    existsResolver: options.joinExistsResolver,
    onError: (error: unknown) => logError("shards: room failed", error),
  };
  const shardServer = createServer((_req, res) => notFound(res));
  // One hub, so a room's members meet whichever port they came through.
  const shards: ShardHub = attachShards(shardServer, {
    ...shardOptions,
    ...(cluster !== undefined && { cluster }),
  });
  shards.attach(options.main, { shared: true });
  options.main.on("upgrade", refuseUnserved);
  const side = [wsServer, eventsServer, shardServer];
  const closeAll = async (timeoutMs: number): Promise<void> => {
    options.main.off("upgrade", refuseUnserved);
    await Promise.all([
      ...hubs.map((hub) => hub.close({ timeoutMs })),
      // The rooms this server ran move before its relay goes.
      shards.close({ timeoutMs }).then(() => cluster?.close()),
      events.close(),
    ]);
    await Promise.all(
      side.map(
        (server) =>
          new Promise<void>((resolveClose) => {
            if (!server.listening) return resolveClose();
            server.close(() => resolveClose());
            server.closeAllConnections();
          }),
      ),
    );
  };
  try {
    const ports = {
      ws: await listenOnPort(wsServer, wsPort, host, "the WebSocket (SVC_PORT + 1)", port),
      events: await listenOnPort(eventsServer, eventsPort, host, "the SSE (SVC_PORT + 2)", port),
      shards: await listenOnPort(shardServer, shardsPort, host, "the shards (SVC_PORT + 3)", port),
    };
    return { ports, events, close: closeAll };
  } catch (error) {
    await closeAll(0);
    throw error;
  }
}
