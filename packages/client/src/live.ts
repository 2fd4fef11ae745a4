import { platformTimers, type Timers } from "./backoff.js";
import { SvcError } from "./errors.js";
import type { EntityRequest, LiveRow } from "./live-frames.js";
import {
  createSocketManager,
  type SocketManager,
  type WebSocketConstructor,
} from "./live-socket.js";
import { type EventStream, openEventStream } from "./live-sse.js";
import type { LiveStatusListener } from "./live-status.js";
import { EntitySubscription, QuerySubscription, type RowsNotice } from "./live-targets.js";
import type { TokenState } from "./token-state.js";
import type { FetchFunction, Transport } from "./transport.js";

/** Options of the live layer (`createClient({ live })`). */
export interface LiveOptions {
  /**
   * `"auto"` (default): WebSocket, and SSE for entity subscriptions when
   * there is no `WebSocket` or `fallbackAfter` connections in a row never
   * opened. `"websocket"`: never fall back. `"sse"`: entity subscriptions
   * over SSE only (live queries then fail with `WEBSOCKET_UNAVAILABLE`).
   */
  readonly transport?: "auto" | "websocket" | "sse";
  /** The `WebSocket` constructor. Default `globalThis.WebSocket` (browsers, Node 22+). */
  readonly WebSocket?: WebSocketConstructor;
  /** Connection attempts in a row that never open before `"auto"` falls back to SSE. Default 3. */
  readonly fallbackAfter?: number;
  /** The random source of the reconnect jitter, in [0, 1). Default `Math.random`. */
  readonly random?: () => number;
  /** The timers reconnects are scheduled with. Default the platform's. */
  readonly timers?: Timers;
  /** Called on every connection state change (see `LiveStatus`). */
  readonly onStatus?: LiveStatusListener;
}

/** What the live layer needs from the client it belongs to. */
export interface LiveContext {
  readonly transport: Transport;
  readonly tokens: TokenState;
  readonly fetch: FetchFunction;
  readonly credentials?: "omit" | "same-origin" | "include";
  readonly options: LiveOptions;
}

/** The live layer behind `client.subscribe` and `client.live`. */
export interface LiveLayer {
  subscribe<TRow extends LiveRow>(
    request: EntityRequest,
    listener: (rows: readonly TRow[]) => void,
    onError: ((error: SvcError) => void) | undefined,
    onNotice?: (notice: RowsNotice) => void,
  ): EntitySubscription<TRow>;
  live<T>(
    query: string,
    args: unknown,
    handlers: { onValue: (value: T) => void; onError?: ((error: SvcError) => void) | undefined },
  ): QuerySubscription<T>;
  /** Stops watching the target. */
  end(target: EntitySubscription<LiveRow> | QuerySubscription<unknown>): void;
}

function webSocketURL(base: string): string {
  const url = new URL(`${base}/ws`);
  url.protocol = url.protocol === "https:" ? "wss:" : "ws:";
  return url.toString();
}

function globalWebSocket(): WebSocketConstructor | undefined {
  return (globalThis as { WebSocket?: unknown }).WebSocket as WebSocketConstructor | undefined;
}

/**
 * Builds the live layer: one lazily opened WebSocket shared by every
 * subscription (or one SSE stream per entity subscription), reset from
 * scratch whenever the client's identity changes.
 */
export function createLiveLayer(context: LiveContext): LiveLayer {
  const { options, tokens } = context;
  const timers = options.timers ?? platformTimers;
  const random = options.random ?? Math.random;
  const onStatus: LiveStatusListener = (status) => options.onStatus?.(status);
  const WebSocketImpl = options.WebSocket ?? globalWebSocket();
  const mode = options.transport ?? "auto";
  let useSSE = mode === "sse" || WebSocketImpl === undefined;
  const token = (): Promise<string | null> => tokens.get();

  const entities = new Set<EntitySubscription<LiveRow>>();
  const queries = new Set<QuerySubscription<unknown>>();
  const streams = new Map<EntitySubscription<LiveRow>, EventStream>();

  const streamFor = (target: EntitySubscription<LiveRow>): void => {
    streams.set(
      target,
      openEventStream(target, {
        url: (path, query) => context.transport.url(path, query),
        token,
        fetch: context.fetch,
        ...(context.credentials !== undefined && { credentials: context.credentials }),
        timers,
        random,
        onStatus,
      }),
    );
  };

  const socket: SocketManager | null =
    WebSocketImpl === undefined
      ? null
      : createSocketManager({
          url: webSocketURL(context.transport.baseURL),
          token,
          WebSocket: WebSocketImpl,
          timers,
          random,
          fallbackAfter: mode === "auto" ? (options.fallbackAfter ?? 3) : null,
          onFallback() {
            // Entity subscriptions move to SSE with their cursors (no gap);
            // live queries have no other transport and keep retrying.
            useSSE = true;
            for (const target of entities) {
              if (target.ended || streams.has(target)) continue;
              socket?.remove(target);
              streamFor(target);
            }
          },
          onStatus,
        });

  // A new identity must not see the previous one's rows: drop everything and subscribe anew.
  tokens.subscribe(() => {
    for (const target of entities) if (!target.ended) target.reset();
    for (const target of queries) if (!target.ended) target.reset();
    socket?.restart();
    for (const stream of streams.values()) stream.restart();
  });

  return {
    subscribe(request, listener, onError, onNotice) {
      const target = new EntitySubscription(request, listener, onError, onNotice);
      const untyped = target as unknown as EntitySubscription<LiveRow>;
      entities.add(untyped);
      if (useSSE || socket === null) streamFor(untyped);
      else socket.add(untyped);
      return target;
    },
    live(query, args, handlers) {
      const target = new QuerySubscription(query, args, handlers);
      if (socket === null || mode === "sse") {
        target.fail(
          new SvcError(
            "WEBSOCKET_UNAVAILABLE",
            "Live queries need a WebSocket, and this client has none (transport sse or no WebSocket).",
            { status: 0 },
          ),
        );
        return target;
      }
      queries.add(target as QuerySubscription<unknown>);
      socket.add(target);
      return target;
    },
    end(target) {
      target.end();
      if (target.kind === "query") {
        queries.delete(target);
        socket?.remove(target);
        return;
      }
      entities.delete(target);
      const stream = streams.get(target);
      streams.delete(target);
      stream?.close();
      socket?.remove(target);
    },
  };
}
