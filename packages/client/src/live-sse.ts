import { backoffDelay, type Timers } from "./backoff.js";
import { errorFromResponse, type SvcError } from "./errors.js";
import {
  type EntityTarget,
  errorOfFrame,
  parseServerFrame,
  RESYNC_REQUIRED,
} from "./live-frames.js";
import type { LiveStatusListener } from "./live-status.js";
import { SSEParser } from "./sse-parser.js";
import type { FetchFunction } from "./transport.js";

/** Options of `openEventStream`. */
export interface EventStreamOptions {
  /** An absolute URL on the server for `path` and `query`. */
  readonly url: (path: string, query: Readonly<Record<string, string | undefined>>) => string;
  readonly token: () => Promise<string | null>;
  readonly fetch: FetchFunction;
  readonly credentials?: "omit" | "same-origin" | "include";
  readonly timers: Timers;
  readonly random: () => number;
  readonly onStatus: LiveStatusListener;
}

/** One entity subscription carried by its own event stream. */
export interface EventStream {
  /** Ends the stream for good. */
  close(): void;
  /** Ends the stream and opens a new one from scratch (the caller's identity changed). */
  restart(): void;
}

function queryOf(target: EntityTarget): Record<string, string | undefined> {
  const { entity, where, orderBy, limit } = target.request;
  return {
    entity,
    where: where === undefined ? undefined : JSON.stringify(where),
    order:
      orderBy === undefined
        ? undefined
        : `${orderBy.direction === "desc" ? "-" : ""}${orderBy.field}`,
    limit: limit === undefined ? undefined : String(limit),
  };
}

async function errorOf(response: Response): Promise<SvcError> {
  let body: unknown;
  try {
    body = await response.json();
  } catch {
    body = undefined;
  }
  return errorFromResponse(response.status, body);
}

/**
 * Carries `target` over `GET /events` (Server-Sent Events read through
 * `fetch`, so the `Authorization` header goes with it in browsers too).
 * A dropped stream is reopened after a full-jitter backoff with
 * `Last-Event-ID` set to the target's cursor, so nothing is missed or
 * repeated; `RESYNC_REQUIRED` reopens it without one (a new snapshot).
 * 401 is reported with `warn` and waits for `restart`; other 4xx answers
 * and error events end the subscription with `fail`.
 */
export function openEventStream(target: EntityTarget, options: EventStreamOptions): EventStream {
  const { timers, onStatus } = options;
  let controller: AbortController | null = null;
  let timer: unknown;
  let attempt = 0;
  let closed = false;
  let generation = 0;

  const stop = (): void => {
    generation += 1;
    controller?.abort();
    controller = null;
    if (timer !== undefined) timers.clearTimeout(timer);
    timer = undefined;
  };

  const retry = (current: number): void => {
    if (current !== generation || closed) return;
    controller = null;
    const delayMs = backoffDelay(attempt, { random: options.random });
    attempt += 1;
    onStatus({ state: "reconnecting", transport: "sse", attempt, delayMs });
    timer = timers.setTimeout(() => {
      timer = undefined;
      void run();
    }, delayMs);
  };

  /** Handles one event; false when the stream must be left (it carries nothing more). */
  const onEvent = (data: string, current: number): boolean => {
    const frame = parseServerFrame(data);
    if (frame === null || current !== generation) return true;
    switch (frame.type) {
      case "snapshot":
        target.snapshot(frame.rows, frame.cursor);
        return true;
      case "change":
        target.change(frame);
        return true;
      case "error":
        if (frame.error.code === RESYNC_REQUIRED) {
          target.resync();
          stop();
          void run();
          return false;
        }
        closed = true;
        stop();
        target.fail(errorOfFrame(frame));
        return false;
      default:
        return true;
    }
  };

  async function run(): Promise<void> {
    if (closed) return;
    generation += 1;
    const current = generation;
    const abort = new AbortController();
    controller = abort;
    onStatus({ state: "connecting", transport: "sse" });
    try {
      const token = await options.token();
      if (current !== generation) return;
      const headers: Record<string, string> = { accept: "text/event-stream" };
      if (token !== null) headers.authorization = `Bearer ${token}`;
      if (target.cursor !== null) headers["last-event-id"] = target.cursor;
      const response = await options.fetch(options.url("/events", queryOf(target)), {
        method: "GET",
        headers,
        signal: abort.signal,
        ...(options.credentials !== undefined && { credentials: options.credentials }),
      });
      if (current !== generation) return;
      if (!response.ok || response.body === null) {
        const error = await errorOf(response);
        if (current !== generation) return;
        if (response.status === 401) {
          onStatus({ state: "unauthorized", transport: "sse", error });
          target.warn(error);
          return;
        }
        if (response.status >= 400 && response.status < 500 && response.status !== 429) {
          closed = true;
          target.fail(error);
          return;
        }
        retry(current);
        return;
      }
      attempt = 0;
      onStatus({ state: "open", transport: "sse" });
      const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
      const parser = new SSEParser();
      for (;;) {
        const { done, value } = await reader.read();
        if (done || current !== generation) break;
        for (const event of parser.push(value)) {
          if (!onEvent(event.data, current)) {
            void reader.cancel().catch(() => undefined);
            return;
          }
        }
      }
    } catch {
      // A network failure or our own abort; only the current attempt retries.
    }
    retry(current);
  }

  void run();

  return {
    close() {
      closed = true;
      stop();
    },
    restart() {
      if (closed) return;
      stop();
      attempt = 0;
      void run();
    },
  };
}
