import type { IncomingMessage, ServerResponse } from "node:http";
import { toErrorResponse } from "@svc/schema";
import { type CallerSources, sendErrorResponse } from "@svc/schema/http";
import type { Sync } from "./create-sync.js";
import { SyncError } from "./errors.js";
import {
  boundedWrite,
  createFanout,
  type FanoutPeer,
  followChanges,
  type SubscribedPeer,
} from "./fanout/peers.js";
import { authenticateLive, createLiveCallers, type LiveCallers } from "./live-callers.js";
import { openSession, type Session } from "./session.js";
import { parseEventsQuery } from "./sse-query.js";
import { bearerOf, originTrusted } from "./upgrade.js";
import type { ServerFrame } from "./ws-frames.js";

/** Default bound of a stream's unsent bytes: 1 MiB. */
export const DEFAULT_EVENTS_MAX_QUEUE = 1024 * 1024;
/** Default interval of keepalive comments: 15 s (under common proxy idle timeouts). */
export const DEFAULT_EVENTS_KEEPALIVE_MS = 15_000;
/** Default reconnection delay a stream asks clients to use (`retry:`): 2 s. */
export const EVENTS_RETRY_MS = 2000;

/** Options of `createEventStreams`. */
export interface EventStreamOptions {
  readonly sync: Sync;
  /** Where callers come from, as for `attachWebSocket`: bearer header, else the cookie. */
  readonly authenticate: CallerSources;
  /** The live callers shared with the other transports (see `attachWebSocket`). Default: its own. */
  readonly callers?: LiveCallers;
  /** Origins allowed to open streams (see `attachWebSocket`); `true` trusts every origin. */
  readonly trustedOrigins: true | readonly string[];
  /** Bytes a stream may leave unsent before it is ended (the client resumes). Default 1 MiB. */
  readonly maxQueue?: number;
  /** The reconnection delay sent to clients (`retry:`). Default 2 s. */
  readonly retryMs?: number;
  /** Interval of keepalive comments. Default 15 s. */
  readonly keepaliveMs?: number;
  /** Receives unexpected errors. Default: logs to `console.error`. */
  readonly onError?: (error: unknown) => void;
}

/** The SSE transport: a request handler plus the streams it holds open. */
export interface EventStreams {
  /** Serves `GET` (and CORS preflights) of the events path; mount it at `/events`. */
  handle(req: IncomingMessage, res: ServerResponse): void;
  /** Open streams. */
  readonly connections: number;
  /** Refuses new streams (503) and ends the open ones; resolves once they are closed. */
  close(): Promise<void>;
}

/** One open stream and its session, a peer of the fan-out. */
interface Stream extends FanoutPeer, SubscribedPeer {
  readonly session: Session;
}

/** A stream as a fan-out peer: comment heartbeats, and the end of the stream on shutdown. */
function streamPeer(res: ServerResponse, session: Session): Stream {
  return {
    session,
    beat: () => res.write(": keepalive\n\n"),
    isClosed: () => res.closed,
    onceClosed: (listener) => res.once("close", () => listener()),
    shutdown: () => res.end(),
  };
}

function errorBody(code: "CREDENTIAL_REVOKED"): { code: string; message: string } {
  return { code, message: new SyncError(code).message };
}

function reportError(error: unknown): void {
  console.error("[@svc/sync] event stream error", error);
}

function sendError(res: ServerResponse, error: unknown, headers: Record<string, string>): void {
  sendErrorResponse(res, toErrorResponse(error), { ...headers, "Cache-Control": "no-store" });
}

/**
 * One frame as an SSE event: a plain `message` whose data is the frame (so
 * one handler serves both transports, and a server `error` frame is never
 * mistaken for `EventSource`'s own error event), with its cursor as the
 * event id.
 */
function eventOf(frame: ServerFrame): string {
  const cursor = "cursor" in frame ? `id: ${frame.cursor}\n` : "";
  return `${cursor}data: ${JSON.stringify(frame)}\n\n`;
}

/**
 * Serves live subscriptions as Server-Sent Events, for clients that cannot
 * open WebSockets. One stream carries one subscription, named by the query
 * string (see `parseEventsQuery`); its events are the WebSocket transport's
 * server frames as `message` events (the frame, with its `type`, is the
 * data) and, for `snapshot` and `change`, the frame's cursor as the event
 * id, so a browser's `EventSource` resumes after a dropped connection with
 * `Last-Event-ID` and misses nothing.
 *
 * - No signed-in user or admin token: 401 `AUTH_REQUIRED` (or the
 *   resolver's own code, such as `INVALID_TOKEN`); an untrusted `Origin`:
 *   403 `ORIGIN_NOT_TRUSTED`; a malformed query: 400 `INVALID_QUERY`; an
 *   unknown entity: 404 `ENTITY_NOT_FOUND`. All as JSON error envelopes.
 * - Trusted cross-origin pages get CORS headers with credentials, and
 *   preflights (`OPTIONS`) are answered, so `fetch`-based readers can send
 *   `Authorization`.
 * - A stream whose unsent bytes pass `maxQueue` is ended; the client
 *   reconnects and resumes from its last event id.
 * - After an `error` event the stream stays open without a subscription:
 *   close it (a browser would otherwise reconnect into the same error).
 *
 * @example
 * const events = createEventStreams({ sync, authenticate, trustedOrigins: ["https://app.example.com"] });
 * http.createServer((req, res) => (req.url?.startsWith("/events") ? events.handle(req, res) : app(req, res)));
 * // browser: new EventSource("/events?entity=Todo", { withCredentials: true })
 */
export function createEventStreams(options: EventStreamOptions): EventStreams {
  const { sync, trustedOrigins } = options;
  const onError = options.onError ?? reportError;
  const maxQueue = options.maxQueue ?? DEFAULT_EVENTS_MAX_QUEUE;
  const streams = createFanout<Stream>({
    keepaliveMs: options.keepaliveMs ?? DEFAULT_EVENTS_KEEPALIVE_MS,
  });
  const callers = options.callers ?? createLiveCallers({ authenticate: options.authenticate });
  let closed = false;
  const stopChanges = followChanges(sync, streams);

  const corsHeaders = (req: IncomingMessage): Record<string, string> => {
    const origin = req.headers.origin;
    if (origin === undefined || !originTrusted(req, trustedOrigins)) return {};
    return {
      "Access-Control-Allow-Origin": origin,
      "Access-Control-Allow-Credentials": "true",
      Vary: "Origin",
    };
  };

  const subscriptionOf = (req: IncomingMessage) => {
    const frame = parseEventsQuery(
      new URL(req.url ?? "/", "http://localhost").searchParams,
      req.headers["last-event-id"] as string | undefined,
    );
    if (!sync.policies.entities.has(frame.entity)) {
      throw new SyncError("ENTITY_NOT_FOUND", {
        message: `The entity ${frame.entity} does not exist.`,
      });
    }
    return frame;
  };

  const serve = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const headers = corsHeaders(req);
    if (!originTrusted(req, trustedOrigins)) throw new SyncError("ORIGIN_NOT_TRUSTED");
    if (req.method === "OPTIONS") {
      res.writeHead(204, {
        ...headers,
        "Access-Control-Allow-Methods": "GET",
        "Access-Control-Allow-Headers": "Authorization, Last-Event-ID",
        "Access-Control-Max-Age": "600",
      });
      res.end();
      return;
    }
    if (req.method !== "GET") {
      res.writeHead(405, { ...headers, Allow: "GET, OPTIONS" });
      res.end();
      return;
    }
    const frame = subscriptionOf(req);
    const bearer = bearerOf(req);
    if ("malformed" in bearer) throw new SyncError("AUTH_REQUIRED");
    const auth = await authenticateLive(req, options.authenticate, bearer.token);
    if (auth === null || (!auth.isAdmin && auth.userId === null)) {
      throw new SyncError("AUTH_REQUIRED");
    }
    // An entity without a read rule is denied before the stream opens, as `/ws` denies it.
    if (!auth.isAdmin && (sync.policies.compiled.rules.get(frame.entity)?.read.length ?? 0) === 0) {
      throw new SyncError("POLICY_DENIED");
    }
    if (closed || req.destroyed) throw new SyncError("SERVICE_UNAVAILABLE");
    let stream: Stream | undefined;
    const release = callers.admit(
      { auth, req, bearer: bearer.token, transport: "sse" },
      {
        revoked() {
          if (stream === undefined) return;
          write(eventOf({ type: "error", error: errorBody("CREDENTIAL_REVOKED") }));
          end();
        },
        changed: (next) => stream?.session.rebind(next),
        subscriptions: () => stream?.session.subscriptions() ?? [],
        // An operator's close: the stream ends, and a browser's EventSource reconnects.
        close: () => end(),
      },
    );
    if (typeof release === "string") throw new SyncError(release);
    res.writeHead(200, {
      ...headers,
      "Content-Type": "text/event-stream; charset=utf-8",
      "Cache-Control": "no-store",
      Connection: "keep-alive",
      // Proxies such as nginx must pass events on as they come.
      "X-Accel-Buffering": "no",
    });
    res.write(`retry: ${options.retryMs ?? EVENTS_RETRY_MS}\n\n`);
    let ended = false;
    const end = (): void => {
      if (ended) return;
      ended = true;
      release();
      if (stream !== undefined) streams.delete(stream);
      session.close();
      res.end();
    };
    // A stream's unsent bytes are counted before the event (as they always were).
    const write = boundedWrite<string>({
      maxQueue,
      queued: () => res.writableLength,
      write: (event) => res.write(event),
      overflow: end,
    });
    const session = openSession(
      auth,
      sync,
      {
        send(event) {
          write(eventOf(event));
        },
        sendChange(encoded, cursor) {
          write(`id: ${cursor}\ndata: ${encoded.toString()}\n\n`);
        },
        get open() {
          return !ended && !res.destroyed;
        },
      },
      onError,
    );
    stream = streamPeer(res, session);
    streams.add(stream);
    res.on("close", end);
    session.handle(frame);
  };

  return {
    handle(req, res) {
      if (closed) {
        sendError(res, new SyncError("SERVICE_UNAVAILABLE"), corsHeaders(req));
        return;
      }
      serve(req, res).catch((error: unknown) => {
        if (res.headersSent) {
          onError(error);
          res.end();
          return;
        }
        const response = toErrorResponse(error);
        if (response.internal) onError(error);
        sendError(res, error, corsHeaders(req));
      });
    },
    get connections() {
      return streams.size;
    },
    async close() {
      if (!closed) {
        closed = true;
        streams.stop();
        stopChanges();
        // A registry of its own stops with it; a shared one is its owner's to close.
        if (options.callers === undefined) callers.close();
      }
      // Streams have nothing to terminate: each ends at once.
      await streams.drain();
    },
  };
}
