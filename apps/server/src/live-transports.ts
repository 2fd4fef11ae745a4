import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { type BearerResolver, readCookie, SESSION_COOKIE } from "@svc/auth-core/express";
import type { AuthContext } from "@svc/schema";
import {
  type Authenticate,
  attachWebSocket,
  createEventStreams,
  type EventStreams,
  type Sync,
  type WebSocketHub,
} from "@svc/sync";
import { ConfigError } from "./config.js";

/** The ports the live transports listen on besides the main one. */
export interface LivePorts {
  /** WebSocket subscriptions (`/ws`): `SVC_PORT + 1`. */
  readonly ws: number;
  /** Server-Sent Events (`/events`): `SVC_PORT + 2`. */
  readonly events: number;
}

/** What the live transports are built from. */
export interface LiveTransportOptions {
  /** The main HTTP server: `/ws` upgrades are served on it too (one proxy rule suffices). */
  readonly main: Server;
  /** The main port as configured: 0 gives every side listener a free port as well. */
  readonly port: number;
  readonly host: string | undefined;
  readonly sync: Sync;
  readonly authenticate: Authenticate;
  readonly trustedOrigins: true | readonly string[];
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

/**
 * Resolves the caller of a live-transport request like an HTTP request's:
 * a bearer token through the resolvers in the spec's order, else the
 * session cookie (a stale cookie is no caller).
 */
export function liveAuthenticator(
  resolvers: readonly BearerResolver[],
  resolveSessionCookie: (token: string) => Promise<AuthContext | null>,
): Authenticate {
  return async (req, bearer) => {
    if (bearer === undefined) {
      const token = readCookie(req.headers.cookie, SESSION_COOKIE);
      return token === undefined ? null : resolveSessionCookie(token);
    }
    const info = {
      ip: req.socket.remoteAddress,
      userAgent: req.headers["user-agent"],
      cookie: req.headers.cookie,
    };
    for (const resolve of resolvers) {
      const caller = await resolve(bearer, info);
      if (caller !== null) return caller;
    }
    return null;
  };
}

function notFound(res: ServerResponse): void {
  res.writeHead(404, { "Content-Type": "application/json; charset=utf-8" });
  res.end(
    JSON.stringify({
      error: { code: "ROUTE_NOT_FOUND", message: "This port serves only its live transport." },
    }),
  );
}

function pathIs(req: IncomingMessage, path: string): boolean {
  const url = req.url ?? "";
  return url === path || url.startsWith(`${path}?`);
}

async function listen(server: Server, port: number, host: string | undefined, name: string) {
  await new Promise<void>((resolveListen, reject) => {
    server.once("error", (error: NodeJS.ErrnoException) =>
      reject(
        error.code === "EADDRINUSE"
          ? new ConfigError("SVC_PORT", `${name} port ${port} is already in use`)
          : error,
      ),
    );
    server.listen({ port, host }, resolveListen);
  });
  return (server.address() as AddressInfo).port;
}

/**
 * Starts the spec's live transports: WebSocket at `/ws` on the main port
 * and on `SVC_PORT + 1`, SSE at `/events` on the main port (served by the
 * app) and on `SVC_PORT + 2`. With `SVC_PORT=0` each side listener takes a
 * free port of its own (`ports` names them). A side port already in use
 * stops the boot with a `ConfigError`.
 */
export async function startLiveTransports(options: LiveTransportOptions): Promise<LiveTransports> {
  const { sync, authenticate, trustedOrigins, port, host } = options;
  const wsPort = port === 0 ? 0 : port + 1;
  const eventsPort = port === 0 ? 0 : port + 2;
  if (wsPort > 65535 || eventsPort > 65535) {
    throw new ConfigError(
      "SVC_PORT",
      `must leave room for the live transports' ports (${port} + 2 > 65535)`,
    );
  }
  const onError = (error: unknown) => console.error("svc: sync:", error);
  const events = createEventStreams({ sync, authenticate, trustedOrigins, onError });
  const hubOptions = { sync, authenticate, trustedOrigins, onError };
  const hubs: WebSocketHub[] = [attachWebSocket(options.main, hubOptions)];
  const wsServer = createServer((_req, res) => notFound(res));
  hubs.push(attachWebSocket(wsServer, hubOptions));
  const eventsServer = createServer((req, res) => {
    if (pathIs(req, "/events")) events.handle(req, res);
    else notFound(res);
  });
  const side = [wsServer, eventsServer];
  const closeAll = async (timeoutMs: number): Promise<void> => {
    await Promise.all([...hubs.map((hub) => hub.close({ timeoutMs })), events.close()]);
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
      ws: await listen(wsServer, wsPort, host, "the WebSocket (SVC_PORT + 1)"),
      events: await listen(eventsServer, eventsPort, host, "the SSE (SVC_PORT + 2)"),
    };
    return { ports, events, close: closeAll };
  } catch (error) {
    await closeAll(0);
    throw error;
  }
}
