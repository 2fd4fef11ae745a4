import type { SvcError } from "./errors.js";

/** Which live transport an event is about. */
export type LiveTransportName = "websocket" | "sse";

/**
 * What the live transports are doing, for an "offline" badge or a test:
 * `connecting`, `open`, `reconnecting` (after `delayMs`, the `attempt`th
 * retry in a row), `closed` (no subscription left, or the client reset),
 * `unauthorized` (the server refused the caller; nothing is retried until
 * the token changes) and `fallback` (WebSocket connections kept failing:
 * entity subscriptions moved to SSE).
 */
export type LiveStatus =
  | {
      readonly state: "connecting" | "open" | "closed" | "fallback";
      readonly transport: LiveTransportName;
    }
  | {
      readonly state: "reconnecting";
      readonly transport: LiveTransportName;
      readonly attempt: number;
      readonly delayMs: number;
    }
  | {
      readonly state: "unauthorized";
      readonly transport: LiveTransportName;
      readonly error: SvcError;
    };

/** Receives every `LiveStatus`. */
export type LiveStatusListener = (status: LiveStatus) => void;
