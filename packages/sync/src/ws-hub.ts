import type { IncomingMessage, Server } from "node:http";
import type { Duplex } from "node:stream";
import type { AuthContext } from "@svc/schema";
import type { CallerSources } from "@svc/schema/http";
import { WS_PROTOCOL } from "@svc/schema/live-frames";
import type { WebSocket } from "ws";
import type { Sync } from "./create-sync.js";
import { createFanout, followChanges } from "./fanout/peers.js";
import { createUpgradeServer } from "./fanout/socket-peer.js";
import { createLiveCallers, type LiveCallers } from "./live-callers.js";
import { pathOf, refuse, refuseUpgrade, upgradeCaller } from "./upgrade.js";
import { type Connection, openConnection } from "./ws-connection.js";
import { MAX_CLIENT_FRAME_BYTES, OPERATOR_CLOSE, WS_CLOSE_CODES } from "./ws-frames.js";

/** The subprotocol of svc's frames (shared with the client); a client may offer it beside `bearer.<token>`. */
export { WS_PROTOCOL };
/** Default bound of a connection's outgoing queue: 1 MiB. */
export const DEFAULT_WS_MAX_QUEUE = 1024 * 1024;
/** Default interval of the server's keepalive pings: 30 s. */
export const DEFAULT_WS_KEEPALIVE_MS = 30_000;

/** Options of `attachWebSocket`. */
export interface WebSocketOptions {
  /** The upgrade path served. Default `/ws`; other paths are refused with 404. */
  readonly path?: string;
  /**
   * Leave upgrades for other paths to another listener instead of
   * refusing them (when several transports share one server; something
   * must then refuse what nobody serves). Default false.
   */
  readonly shared?: boolean;
  readonly sync: Sync;
  /**
   * Where callers come from: @svc/schema's `CallerSources`, the bearer
   * resolvers and the session cookie the HTTP gate uses too, resolved
   * through its `resolveCaller`. The token is that of `Authorization:
   * Bearer <token>`, else of a `bearer.<token>` subprotocol; without
   * either, the session cookie is read. A resolver returns null, or throws,
   * for an invalid credential. A caller that is neither a user nor the
   * admin token is refused: the socket is closed with 1008.
   */
  readonly authenticate: CallerSources;
  /**
   * The registry of live callers shared with the server's other live
   * transports: it bounds connections per user and per address and
   * re-checks callers when credentials change (`LiveCallers.recheckUser`).
   * Default: one of this hub's own, with the default bounds.
   */
  readonly callers?: LiveCallers;
  /**
   * Origins allowed to open sockets (requests without `Origin` are not
   * browsers and pass); the server's own origin (`Host`) always is. `true`
   * trusts every origin (dev mode). Others are refused with 403.
   */
  readonly trustedOrigins: true | readonly string[];
  /** Bytes a connection's outgoing buffer may hold before it is closed with 1013. Default 1 MiB. */
  readonly maxQueue?: number;
  /** Interval of keepalive pings; a peer that missed the previous one is terminated. Default 30 s. */
  readonly keepaliveMs?: number;
  /** Receives unexpected errors. Default: logs to `console.error`. */
  readonly onError?: (error: unknown) => void;
}

/** The WebSocket transport attached to an HTTP server. */
export interface WebSocketHub {
  /** Open, authenticated sockets. */
  readonly connections: number;
  /**
   * Refuses new upgrades (503), closes every socket with 1001 and resolves
   * once they are closed; sockets still open after `timeoutMs` (default
   * 1000) are terminated.
   */
  close(options?: { timeoutMs?: number }): Promise<void>;
}

/** A caller the registry admitted, until its socket closes. */
interface Admitted {
  connection: Connection | undefined;
  release: () => void;
}

function destroySocket(this: Duplex): void {
  this.destroy();
}

function ignore(): void {}

function reportError(error: unknown): void {
  console.error("[@svc/sync] WebSocket transport error", error);
}

/**
 * Serves live subscriptions over WebSocket on `server`'s `upgrade` event:
 * JSON frames (`ClientFrame`, `ServerFrame`), each subscription a snapshot
 * read as the caller then every later change the caller may see, filtered
 * by the read policies and the subscription's `where` (`remove` when a row
 * leaves the view).
 *
 * - Credentials: `Authorization: Bearer`, else a `bearer.<token>`
 *   subprotocol (browsers; the chosen subprotocol is echoed, `svc.v1` when
 *   offered), else whatever `authenticate` reads (the session cookie).
 *   Without a signed-in user or the admin token the socket is accepted and
 *   closed with 1008; anonymous callers cannot subscribe.
 * - An untrusted `Origin` is refused with 403, another path with 404.
 * - A connection whose outgoing buffer passes `maxQueue` is closed with
 *   1013; the client reconnects and resumes from its last cursor (pull).
 * - On a log reset every subscription gets `RESYNC_REQUIRED` and is dropped.
 *
 * @example
 * const hub = attachWebSocket(server, {
 *   sync,
 *   trustedOrigins: ["https://app.example.com"],
 *   authenticate: { resolvers: [(token) => resolveToken(token)] },
 * });
 * await hub.close();
 */
export function attachWebSocket(server: Server, options: WebSocketOptions): WebSocketHub {
  const path = options.path ?? "/ws";
  const { sync, trustedOrigins } = options;
  const onError = options.onError ?? reportError;
  const context = { sync, maxQueue: options.maxQueue ?? DEFAULT_WS_MAX_QUEUE, onError };
  const connections = createFanout<Connection>({
    keepaliveMs: options.keepaliveMs ?? DEFAULT_WS_KEEPALIVE_MS,
  });
  const callers = options.callers ?? createLiveCallers({ authenticate: options.authenticate });
  let closed = false;
  const wss = createUpgradeServer(WS_PROTOCOL, MAX_CLIENT_FRAME_BYTES);

  // Long-lived listeners are made here, at the hub's level, never inside
  // the upgrade handler: a closure there would keep the upgrade request
  // (headers, head buffer) alive for the connection's whole life.
  const accept = (
    ws: WebSocket,
    raw: Duplex,
    caller: { auth: AuthContext; admitted: Admitted } | { reason: string },
  ): void => {
    if ("reason" in caller) {
      ws.close(
        caller.reason === "TOO_MANY_CONNECTIONS"
          ? WS_CLOSE_CODES.TRY_AGAIN_LATER
          : WS_CLOSE_CODES.POLICY_VIOLATION,
        caller.reason,
      );
      return;
    }
    ws.on("error", ignore);
    const connection = openConnection(ws, raw, caller.auth, context);
    caller.admitted.connection = connection;
    connections.add(connection);
    ws.once("close", () => {
      connections.delete(connection);
      caller.admitted.release();
    });
  };

  /** Registers a resolved caller; the connection is bound once the upgrade completes. */
  const admit = (
    req: IncomingMessage,
    caller: { auth: AuthContext; bearer: string | undefined },
  ): { auth: AuthContext; admitted: Admitted } | { reason: string } => {
    const admitted: Admitted = { connection: undefined, release: ignore };
    const release = callers.admit(
      { auth: caller.auth, req, bearer: caller.bearer, transport: "websocket" },
      {
        revoked: () =>
          admitted.connection?.end(WS_CLOSE_CODES.POLICY_VIOLATION, "credential revoked"),
        changed: (auth) => admitted.connection?.session.rebind(auth),
        subscriptions: () => admitted.connection?.session.subscriptions() ?? [],
        // An operator's close: the client reconnects after its backoff.
        close: () => admitted.connection?.end(WS_CLOSE_CODES.TRY_AGAIN_LATER, OPERATOR_CLOSE),
      },
    );
    if (typeof release === "string") return { reason: release };
    admitted.release = release;
    return { auth: caller.auth, admitted };
  };

  const onUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer): void => {
    if (pathOf(req.url) !== path) {
      if (options.shared === true) return;
      socket.on("error", destroySocket);
      refuse(socket, 404, "Not Found");
      return;
    }
    socket.on("error", destroySocket);
    if (refuseUpgrade(req, socket, { closed, trustedOrigins })) return;
    void upgradeCaller(req, options.authenticate).then((resolved) => {
      if (socket.destroyed) return;
      if (closed) {
        refuse(socket, 503, "Service Unavailable");
        return;
      }
      // Admitted only once the handshake succeeded: a failed one (ws answers
      // it with 400 and never calls back) must not hold a place in the bounds.
      wss.handleUpgrade(req, socket, head, (ws) =>
        accept(ws, socket, "reason" in resolved ? resolved : admit(req, resolved)),
      );
    });
  };
  server.on("upgrade", onUpgrade);

  const stopChanges = followChanges(sync, connections);

  return {
    get connections() {
      return connections.size;
    },
    async close(closeOptions = {}) {
      if (!closed) {
        closed = true;
        server.off("upgrade", onUpgrade);
        connections.stop();
        stopChanges();
        // A registry of its own stops with it; a shared one is its owner's to close.
        if (options.callers === undefined) callers.close();
      }
      await connections.drain(closeOptions.timeoutMs);
      wss.close();
    },
  };
}
