import { backoffDelay, platformTimers, type Timers } from "./backoff.js";
import { NETWORK_ERROR, SvcError } from "./errors.js";
import { generateId } from "./ids.js";
import type { CallOptions, Transport, TransportRequest, TransportResponse } from "./transport.js";

/** Options of `createClient({ writes })`: how writes are named and retried. */
export interface WriteOptions {
  /**
   * Send every write (`fn` calls, entity `insert`, `update`, `delete`) with
   * an `Idempotency-Key` the client makes, so the server applies it once
   * however often it arrives. Default true.
   */
  readonly idempotency?: boolean;
  /**
   * How often a write that got no answer (`NETWORK_ERROR`), or whose key
   * is still running on the server (409 `IDEMPOTENCY_KEY_IN_PROGRESS`), is
   * sent again with the same key before the call rejects. Only with
   * `idempotency`. Default 2.
   */
  readonly retries?: number;
  /** The timers the retries wait with. Default the platform's. */
  readonly timers?: Timers;
  /** The random source of the retry jitter, in [0, 1). Default `Math.random`. */
  readonly random?: () => number;
  /** Makes a new idempotency key. Default `generateId` (40 lowercase hex). */
  readonly generateKey?: () => string;
}

/** Per-call options of a write (`fn`, entity `insert`, `update`, `delete`). */
export interface WriteCallOptions extends CallOptions {
  /**
   * The `Idempotency-Key` to send: your own key (1 to 255 printable ASCII
   * characters) to name the write yourself, or `false` to send none (the
   * call is then never retried). Default a new key per call, unless
   * `writes.idempotency` is false.
   */
  readonly idempotencyKey?: string | false;
}

/** The header a replayed answer carries: the write had been applied before. */
export const REPLAYED_HEADER = "idempotent-replayed";

/** The code the server answers while the same key's first request still runs. */
export const IDEMPOTENCY_KEY_IN_PROGRESS = "IDEMPOTENCY_KEY_IN_PROGRESS";

/** Sends writes with idempotency keys, retrying the ones that got no answer. */
export interface WriteSender {
  /** A new key (`writes.generateKey`). */
  newKey(): string;
  /** The key a call sends: its own, none (`false`), or a new one when `writes.idempotency` is on. */
  keyFor(option: string | false | undefined): string | undefined;
  /**
   * Sends `request` with `key` (none when undefined); a `NETWORK_ERROR`, a
   * load balancer's 502, 503 or 504 page (`HTTP_502`...) or
   * `IDEMPOTENCY_KEY_IN_PROGRESS` is retried with the same key up to
   * `retries` times after a backoff. Without a key it is sent once.
   */
  send<T>(request: TransportRequest, key: string | undefined): Promise<TransportResponse<T>>;
}

/**
 * A load balancer's own answer when no server answered (`HTTP_502`,
 * `HTTP_503`, `HTTP_504`: an error page without the svc envelope): the
 * server may have applied the write before it died, like a lost answer.
 */
const GATEWAY_ERRORS: ReadonlySet<string> = new Set(["HTTP_502", "HTTP_503", "HTTP_504"]);

/**
 * Whether a failed write may simply be sent again with its key: no answer
 * came (from the server itself or, behind a load balancer, through it), or
 * the key's first request is still running on the server.
 */
export function isRetryableWriteError(error: unknown): boolean {
  return (
    error instanceof SvcError &&
    (error.code === NETWORK_ERROR ||
      error.code === IDEMPOTENCY_KEY_IN_PROGRESS ||
      GATEWAY_ERRORS.has(error.code))
  );
}

/** Resolves after `ms` on `timers`; rejects with `ABORTED` when `signal` aborts first. */
export function wait(timers: Timers, ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const aborted = (): SvcError =>
      new SvcError("ABORTED", "The request was aborted.", { status: 0, cause: signal?.reason });
    if (signal?.aborted) {
      reject(aborted());
      return;
    }
    const onAbort = (): void => {
      timers.clearTimeout(handle);
      reject(aborted());
    };
    const handle = timers.setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/** The write sender of a client. */
export function createWriteSender(transport: Transport, options: WriteOptions = {}): WriteSender {
  const idempotency = options.idempotency ?? true;
  const retries = Math.max(0, options.retries ?? 2);
  const timers = options.timers ?? platformTimers;
  const random = options.random ?? Math.random;
  const newKey = options.generateKey ?? generateId;
  return {
    newKey,
    keyFor(option) {
      if (option === false) return undefined;
      if (option !== undefined) return option;
      return idempotency ? newKey() : undefined;
    },
    async send<T>(request: TransportRequest, key: string | undefined) {
      const keyed = key === undefined ? request : { ...request, idempotencyKey: key };
      for (let attempt = 0; ; attempt += 1) {
        try {
          return await transport.request<T>(keyed);
        } catch (error) {
          if (key === undefined || attempt >= retries || !isRetryableWriteError(error)) throw error;
        }
        await wait(timers, backoffDelay(attempt, { random }), request.signal);
      }
    },
  };
}
