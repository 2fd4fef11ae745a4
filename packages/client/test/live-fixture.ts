import type { LiveStatus, Timers, WebSocketConstructor, WebSocketLike } from "../src/index.js";

/** The server's database settings for a test database. */
export { serverDatabaseEnv as databaseEnv } from "@svc/tooling/databases";

/** Timers the test fires by hand: reconnects happen exactly when the test says. */
export interface ManualTimers {
  readonly timers: Timers;
  /** Delays of every timer scheduled so far, in order. */
  readonly scheduled: number[];
  /** Timers scheduled and neither fired nor cleared. */
  pending(): number;
  /** Fires the oldest pending timer. */
  fire(): void;
}

export function manualTimers(): ManualTimers {
  const queue: { callback: () => void }[] = [];
  const scheduled: number[] = [];
  return {
    timers: {
      setTimeout(callback, ms) {
        const entry = { callback };
        queue.push(entry);
        scheduled.push(ms);
        return entry;
      },
      clearTimeout(handle) {
        const index = queue.indexOf(handle as { callback: () => void });
        if (index !== -1) queue.splice(index, 1);
      },
    },
    scheduled,
    pending: () => queue.length,
    fire() {
      const entry = queue.shift();
      if (entry === undefined) throw new Error("no timer pending");
      entry.callback();
    },
  };
}

/** Node's WebSocket, recording every socket and the frames each sent and got. */
export interface RecordingWebSocket {
  readonly WebSocket: WebSocketConstructor;
  readonly sockets: WebSocketLike[];
  readonly sent: Record<string, unknown>[];
  readonly received: Record<string, unknown>[];
}

export function recordingWebSocket(
  Base: WebSocketConstructor = globalThis.WebSocket as unknown as WebSocketConstructor,
): RecordingWebSocket {
  const sockets: WebSocketLike[] = [];
  const sent: Record<string, unknown>[] = [];
  const received: Record<string, unknown>[] = [];
  class Recording extends Base {
    constructor(url: string, protocols?: string | string[]) {
      super(url, protocols);
      (this as unknown as EventTarget).addEventListener("message", (event) => {
        received.push(JSON.parse(String((event as MessageEvent).data)) as Record<string, unknown>);
      });
      sockets.push(this);
    }

    override send(data: string): void {
      sent.push(JSON.parse(data) as Record<string, unknown>);
      super.send(data);
    }
  }
  return { WebSocket: Recording, sockets, sent, received };
}

/** Collects every `LiveStatus`. */
export function statusLog(): {
  statuses: LiveStatus[];
  onStatus: (status: LiveStatus) => void;
  states(): string[];
} {
  const statuses: LiveStatus[] = [];
  return {
    statuses,
    onStatus: (status) => statuses.push(status),
    states: () => statuses.map((status) => `${status.transport}:${status.state}`),
  };
}

/** Titles of rows, for compact assertions. */
export function titles(rows: readonly object[]): unknown[] {
  return rows.map((row) => (row as { title?: unknown }).title);
}

/** The platform's fetch, recording `/events` requests and able to cut their streams. */
export interface DroppableFetch {
  readonly fetch: (input: string, init: RequestInit) => Promise<Response>;
  /** Headers of each `/events` request, in order. */
  readonly requests: { readonly url: string; readonly headers: Headers }[];
  /** Ends every open event stream as a dropped connection would. */
  dropAll(): void;
}

export function droppableFetch(): DroppableFetch {
  const requests: { url: string; headers: Headers }[] = [];
  const open = new Set<ReadableStreamDefaultReader<Uint8Array>>();
  return {
    requests,
    async fetch(input, init) {
      const response = await globalThis.fetch(input, init);
      if (!new URL(input).pathname.startsWith("/events")) return response;
      requests.push({ url: input, headers: new Headers(init.headers) });
      if (!response.ok || response.body === null) return response;
      const reader = response.body.getReader();
      open.add(reader);
      const body = new ReadableStream<Uint8Array>({
        async pull(controller) {
          const { done, value } = await reader
            .read()
            .catch(() => ({ done: true, value: undefined }));
          if (done || value === undefined) {
            open.delete(reader);
            controller.close();
          } else controller.enqueue(value);
        },
        cancel: (reason) => reader.cancel(reason),
      });
      return new Response(body, { status: response.status, headers: response.headers });
    },
    dropAll() {
      for (const reader of open) void reader.cancel(new Error("dropped")).catch(() => undefined);
      open.clear();
    },
  };
}

/** Node's WebSocket aimed at a path the server refuses (404): a blocked upgrade. */
export function blockedWebSocket(attempts: { count: number }): WebSocketConstructor {
  const Base = globalThis.WebSocket as unknown as WebSocketConstructor;
  return class Blocked extends Base {
    constructor(url: string, protocols?: string | string[]) {
      attempts.count += 1;
      super(url.replace(/\/ws$/, "/blocked-by-proxy"), protocols);
    }
  };
}
