import { backoffDelay, type Timers } from "./backoff.js";
import { SvcError } from "./errors.js";
import {
  errorOfFrame,
  type LiveTarget,
  parseServerFrame,
  RESYNC_REQUIRED,
  type ServerFrame,
  subscribeFrame,
  WS_CLOSE_CODES,
  WS_PROTOCOL,
} from "./live-frames.js";
import type { LiveStatusListener } from "./live-status.js";

/** The part of the WHATWG `WebSocket` the client uses (browsers, Node 22+'s global). */
export interface WebSocketLike {
  readonly readyState: number;
  send(data: string): void;
  close(code?: number, reason?: string): void;
  onopen: ((event: unknown) => void) | null;
  onmessage: ((event: { readonly data: unknown }) => void) | null;
  onclose: ((event: { readonly code: number; readonly reason: string }) => void) | null;
  onerror: ((event: unknown) => void) | null;
}

/** A `WebSocket` constructor (`globalThis.WebSocket` by default). */
export type WebSocketConstructor = new (
  url: string,
  protocols?: string | string[],
) => WebSocketLike;

const OPEN = 1;
const NORMAL_CLOSURE = 1000;
/** The server closes with 1008 when there is no caller: retrying cannot help. */
const { POLICY_VIOLATION } = WS_CLOSE_CODES;

/** Options of `createSocketManager`. */
export interface SocketManagerOptions {
  /** `ws(s)://host/ws`. */
  readonly url: string;
  readonly token: () => Promise<string | null>;
  readonly WebSocket: WebSocketConstructor;
  readonly timers: Timers;
  readonly random: () => number;
  /** Connection attempts in a row that never open before `onFallback`; null: never. */
  readonly fallbackAfter: number | null;
  /** WebSocket looks blocked: move what can move to SSE (with `remove`). */
  readonly onFallback: () => void;
  readonly onStatus: LiveStatusListener;
}

/** The one shared socket of a client, multiplexing its subscriptions. */
export interface SocketManager {
  add(target: LiveTarget): void;
  /** Ends `target`'s subscription; the socket closes with the last one. */
  remove(target: LiveTarget): void;
  /** Closes the socket and subscribes everything anew (the caller's identity changed). */
  restart(): void;
}

/**
 * Opens the socket when the first subscription is added and closes it
 * when the last one is removed. A dropped socket is reopened after a
 * full-jitter backoff (`backoffDelay`), entity subscriptions resuming with
 * `since` (their last cursor) and live queries subscribing again. A close
 * with 1008 (no caller) is reported to every subscription with
 * `AUTH_REQUIRED` and not retried until `restart`.
 */
export function createSocketManager(options: SocketManagerOptions): SocketManager {
  const { timers, onStatus } = options;
  const targets = new Set<LiveTarget>();
  const byWireId = new Map<string, LiveTarget>();
  const wireIdOf = new Map<LiveTarget, string>();
  let socket: WebSocketLike | null = null;
  let phase: "idle" | "connecting" | "open" | "waiting" | "blocked" = "idle";
  let timer: unknown;
  let attempt = 0;
  let failures = 0;
  let nextWireId = 0;
  // Bumped whenever the current attempt is abandoned; late callbacks compare it.
  let generation = 0;

  const forgetWireIds = (): void => {
    byWireId.clear();
    wireIdOf.clear();
  };

  const send = (target: LiveTarget): void => {
    if (socket === null || phase !== "open" || socket.readyState !== OPEN) return;
    const previous = wireIdOf.get(target);
    if (previous !== undefined) byWireId.delete(previous);
    // A fresh id per subscribe: late frames of an earlier attempt are ignored.
    nextWireId += 1;
    const id = String(nextWireId);
    byWireId.set(id, target);
    wireIdOf.set(target, id);
    socket.send(JSON.stringify(subscribeFrame(id, target)));
  };

  const drop = (): void => {
    generation += 1;
    if (timer !== undefined) timers.clearTimeout(timer);
    timer = undefined;
    const current = socket;
    socket = null;
    forgetWireIds();
    if (current !== null) {
      current.onopen = current.onmessage = current.onclose = current.onerror = null;
      try {
        current.close(NORMAL_CLOSURE);
      } catch {
        // Closing a socket that never opened may throw in some environments.
      }
    }
  };

  const handle = (frame: ServerFrame): void => {
    if (frame.type === "pong") return;
    const target = frame.id === undefined ? undefined : byWireId.get(frame.id);
    if (target === undefined) return;
    switch (frame.type) {
      case "snapshot":
        if (target.kind === "entity") target.snapshot(frame.rows, frame.cursor);
        return;
      case "change":
        if (target.kind === "entity") target.change(frame);
        return;
      case "result":
        if (target.kind === "query") target.result(frame.value, frame.cursor);
        return;
      case "error": {
        byWireId.delete(frame.id ?? "");
        wireIdOf.delete(target);
        if (frame.error.code === RESYNC_REQUIRED && target.kind === "entity") {
          target.resync();
          send(target);
          return;
        }
        targets.delete(target);
        target.fail(errorOfFrame(frame));
        if (targets.size === 0) close();
        return;
      }
    }
  };

  const schedule = (): void => {
    if (targets.size === 0) return;
    const delayMs = backoffDelay(attempt, { random: options.random });
    attempt += 1;
    phase = "waiting";
    onStatus({ state: "reconnecting", transport: "websocket", attempt, delayMs });
    timer = timers.setTimeout(() => {
      timer = undefined;
      phase = "idle";
      connect();
    }, delayMs);
  };

  const onClosed = (code: number, reason: string, opened: boolean): void => {
    socket = null;
    forgetWireIds();
    if (code === POLICY_VIOLATION) {
      phase = "blocked";
      const error = new SvcError(
        "AUTH_REQUIRED",
        `The server refused the live connection${reason === "" ? "" : ` (${reason})`}; sign in again.`,
        { status: 0 },
      );
      onStatus({ state: "unauthorized", transport: "websocket", error });
      for (const target of [...targets]) target.warn(error);
      return;
    }
    phase = "idle";
    if (!opened) {
      failures += 1;
      if (options.fallbackAfter !== null && failures >= options.fallbackAfter) {
        failures = 0;
        onStatus({ state: "fallback", transport: "websocket" });
        options.onFallback();
      }
    }
    schedule();
  };

  const open = (token: string | null): void => {
    let ws: WebSocketLike;
    const protocols = token === null ? [WS_PROTOCOL] : [WS_PROTOCOL, `bearer.${token}`];
    try {
      ws = new options.WebSocket(options.url, protocols);
    } catch {
      // A token the constructor refuses as a subprotocol, a bad URL: a failed attempt.
      onClosed(1006, "", false);
      return;
    }
    socket = ws;
    let opened = false;
    ws.onopen = () => {
      opened = true;
      phase = "open";
      attempt = 0;
      failures = 0;
      onStatus({ state: "open", transport: "websocket" });
      for (const target of targets) send(target);
    };
    ws.onmessage = (event) => {
      if (typeof event.data !== "string") return;
      const frame = parseServerFrame(event.data);
      if (frame !== null) handle(frame);
    };
    ws.onclose = (event) => onClosed(event.code, event.reason, opened);
    // Errors are followed by a close event, which decides what happens next.
    ws.onerror = () => undefined;
  };

  function connect(): void {
    if (phase !== "idle" || targets.size === 0) return;
    phase = "connecting";
    onStatus({ state: "connecting", transport: "websocket" });
    const current = generation;
    options.token().then(
      (token) => {
        if (current !== generation || phase !== "connecting") return;
        if (targets.size === 0) {
          phase = "idle";
          return;
        }
        open(token);
      },
      () => {
        if (current === generation && phase === "connecting") onClosed(1006, "", false);
      },
    );
  }

  function close(): void {
    drop();
    phase = "idle";
    attempt = 0;
    failures = 0;
    onStatus({ state: "closed", transport: "websocket" });
  }

  return {
    add(target) {
      targets.add(target);
      if (phase === "open") send(target);
      else if (phase === "blocked") target.warn(blockedError());
      else connect();
    },
    remove(target) {
      if (!targets.delete(target)) return;
      const id = wireIdOf.get(target);
      if (id !== undefined) {
        byWireId.delete(id);
        wireIdOf.delete(target);
        if (socket !== null && socket.readyState === OPEN) {
          socket.send(JSON.stringify({ type: "unsubscribe", id }));
        }
      }
      if (targets.size === 0) close();
    },
    restart() {
      drop();
      phase = "idle";
      attempt = 0;
      failures = 0;
      if (targets.size === 0) return;
      connect();
    },
  };
}

function blockedError(): SvcError {
  return new SvcError("AUTH_REQUIRED", "The server refused the live connection; sign in again.", {
    status: 0,
  });
}
