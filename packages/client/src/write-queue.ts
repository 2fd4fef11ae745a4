import { type BackoffOptions, backoffDelay, platformTimers, type Timers } from "./backoff.js";
import {
  type Deleted,
  type EntityWrite,
  entityWriteChange,
  entityWriteRequest,
  type InsertInput,
} from "./entities.js";
import { NETWORK_ERROR, SvcError } from "./errors.js";
import { generateId } from "./ids.js";
import {
  type OptimisticBatch,
  type OptimisticStore,
  type OptimisticUpdate,
  recordOptimistic,
  rowOfAnswer,
} from "./optimistic.js";
import { parseQueue, type QueuedWrite, serializeQueue } from "./queue-entries.js";
import { createMemoryStorage, type TokenStorage } from "./storage.js";
import type { TokenState } from "./token-state.js";
import type { Transport, TransportRequest, TransportResponse } from "./transport.js";
import type {
  AnyApi,
  ApiShape,
  EntityName,
  EntityRow,
  FunctionArgs,
  FunctionName,
  FunctionResult,
} from "./types.js";
import { IDEMPOTENCY_KEY_IN_PROGRESS, REPLAYED_HEADER } from "./write-sender.js";

/** Options of `createClient({ queue })`: where the write queue keeps its writes. */
export interface QueueOptions {
  /**
   * Where queued writes are kept (the `TokenStorage` shape: `localStorage`,
   * AsyncStorage, a file), so they survive a reload and are sent by the
   * next client made with the same storage. Default in memory.
   */
  readonly storage?: TokenStorage;
  /** The key the queue is stored under. Default `"svc_write_queue"`. */
  readonly storageKey?: string;
  /** The waits between attempts while the server is unreachable (`random` comes from `writes`). */
  readonly backoff?: Omit<BackoffOptions, "random">;
}

/** Per-call options of `queue.fn`. */
export interface QueueFnOptions<TApi extends ApiShape = AnyApi> {
  /** Changes shown at once in live subscriptions until the write is applied or dropped. */
  readonly optimistic?: OptimisticUpdate<TApi>;
  /** The `Idempotency-Key` (1 to 255 printable ASCII). Default a new `generateId()`. */
  readonly idempotencyKey?: string;
}

/** Per-call options of `queue.insert`, `update` and `delete`. */
export interface QueueEntityOptions {
  /** Show the change at once in live subscriptions until it is applied or dropped. Default true. */
  readonly optimistic?: boolean;
  /** The `Idempotency-Key` (1 to 255 printable ASCII). Default a new `generateId()`. */
  readonly idempotencyKey?: string;
}

/**
 * What the queue is doing: `loading` its storage, `idle` (empty),
 * `sending` the oldest write, or `waiting` to try again (the server could
 * not be reached, or answered 408, 429 or 5xx: `error`).
 */
export interface QueueState {
  readonly status: "loading" | "idle" | "sending" | "waiting";
  /** The writes not applied yet, oldest first. */
  readonly pending: readonly QueuedWrite[];
  /** The failure the queue waits after; null unless `waiting`. */
  readonly error: SvcError | null;
}

/** What `queue.subscribe` listeners receive. */
export type QueueEvent =
  | { readonly type: "state"; readonly state: QueueState }
  /** The server applied the write; `replayed` when it had applied it before (its answer was lost). */
  | {
      readonly type: "applied";
      readonly write: QueuedWrite;
      readonly result: unknown;
      readonly replayed: boolean;
    }
  /** The server refused the write for good (a 4xx but 408 and 429), or the queue was cleared. */
  | { readonly type: "dropped"; readonly write: QueuedWrite; readonly error: SvcError };

/**
 * The client's offline write queue: writes sent one at a time in the order
 * they were queued, each with an `Idempotency-Key` made when it was queued.
 * While the server cannot be reached the queue waits (with backoff, until
 * the platform's `online` event, the live connection reopening, or
 * `flush()`) and sends the same write again with the same key, so a write
 * that reached the server before the connection dropped is applied once.
 * A write the server refuses for good is dropped and reported; the next one
 * is sent. Every write is stored before it is sent.
 */
export interface WriteQueue<TApi extends ApiShape = AnyApi> {
  /** What the queue is doing now. */
  readonly state: QueueState;
  /** Resolves once the stored writes are loaded (and queued to be sent). */
  readonly ready: Promise<void>;
  /**
   * Queues a server function call (a mutation or action); resolves to its
   * result once applied, rejects with the `SvcError` it was dropped for.
   */
  fn<TName extends FunctionName<TApi>>(
    name: TName,
    ...args: [...FunctionArgs<TApi, TName>, options?: QueueFnOptions<TApi>]
  ): Promise<FunctionResult<TApi, TName>>;
  /** Queues an insert; an insert without `id` gets a `generateId()` one now. */
  insert<TName extends EntityName<TApi>>(
    entity: TName,
    data: InsertInput<TApi["entities"][TName]>,
    options?: QueueEntityOptions,
  ): Promise<EntityRow<TApi["entities"][TName]>>;
  /** Queues an update. */
  update<TName extends EntityName<TApi>>(
    entity: TName,
    id: string,
    patch: Partial<TApi["entities"][TName]>,
    options?: QueueEntityOptions,
  ): Promise<EntityRow<TApi["entities"][TName]>>;
  /** Queues a delete. */
  delete<TName extends EntityName<TApi>>(
    entity: TName,
    id: string,
    options?: QueueEntityOptions,
  ): Promise<Deleted>;
  /** Tries the oldest write now instead of after the wait; resolves when the queue is idle or waits again. */
  flush(): Promise<void>;
  /** Drops every queued write (each reported with `QUEUE_CLEARED`). Signing out does this. */
  clear(): Promise<void>;
  /** Calls `listener` with every state change, applied and dropped write; returns the unsubscribe function. */
  subscribe(listener: (event: QueueEvent) => void): () => void;
}

/** What a queue is made with. */
export interface QueueContext {
  readonly transport: Transport;
  readonly tokens: TokenState;
  readonly optimistic: OptimisticStore;
  readonly options: QueueOptions;
  readonly timers?: Timers;
  readonly random?: () => number;
  readonly generateKey?: () => string;
}

/** The code of writes dropped by `clear()` or a sign-out. */
export const QUEUE_CLEARED = "QUEUE_CLEARED";

/** Whether the queue should wait and send `error`'s write again (rather than drop it). */
export function isTransientError(error: SvcError): boolean {
  return (
    error.code === NETWORK_ERROR ||
    error.status === 408 ||
    error.status === 429 ||
    error.status >= 500 ||
    error.code === IDEMPOTENCY_KEY_IN_PROGRESS
  );
}

interface Waiter {
  resolve(value: unknown): void;
  reject(error: unknown): void;
}

function requestOf(write: QueuedWrite): TransportRequest {
  const request: TransportRequest =
    write.kind === "fn"
      ? {
          method: "POST",
          path: `/api/fn/${encodeURIComponent(write.name)}`,
          body: write.args ?? {},
        }
      : entityWriteRequest(write);
  return { ...request, idempotencyKey: write.key };
}

/** Builds `client.queue`. */
export function createWriteQueue<TApi extends ApiShape>(context: QueueContext): WriteQueue<TApi> {
  const { transport, optimistic, options } = context;
  const storage = options.storage ?? createMemoryStorage();
  const storageKey = options.storageKey ?? "svc_write_queue";
  const timers = context.timers ?? platformTimers;
  const random = context.random ?? Math.random;
  const newKey = context.generateKey ?? generateId;
  const listeners = new Set<(event: QueueEvent) => void>();
  const waiters = new Map<QueuedWrite, Waiter>();
  const batches = new Map<QueuedWrite, OptimisticBatch>();
  let entries: QueuedWrite[] = [];
  let state: QueueState = { status: "loading", pending: [], error: null };
  let running: Promise<void> | null = null;
  let timer: unknown = null;
  let failures = 0;
  let saving: Promise<void> = Promise.resolve();
  let stopOnline: (() => void) | null = null;

  const emit = (event: QueueEvent): void => {
    for (const listener of [...listeners]) {
      try {
        listener(event);
      } catch (error) {
        console.error("svc client: a queue listener threw:", error);
      }
    }
  };
  const setState = (status: QueueState["status"], error: SvcError | null): void => {
    state = { status, pending: [...entries], error };
    emit({ type: "state", state });
  };
  // Written in order; a storage that fails is reported and the queue goes on in memory.
  const persist = (): Promise<void> => {
    const text = entries.length === 0 ? null : serializeQueue(entries);
    saving = saving
      .then(() => (text === null ? storage.remove(storageKey) : storage.set(storageKey, text)))
      .catch((error: unknown) =>
        console.error("svc client: storing the write queue failed:", error),
      );
    return saving;
  };
  const track = (write: QueuedWrite): void => {
    if (write.changes.length > 0) batches.set(write, optimistic.add(write.changes));
  };

  let loaded = false;
  const ready = Promise.resolve(storage.get(storageKey))
    .then(
      (text) => {
        const { writes, skipped } = parseQueue(text);
        if (skipped > 0) console.error(`svc client: ${skipped} stored queued write(s) unreadable`);
        entries = [...writes, ...entries];
        for (const write of writes) track(write);
      },
      (error: unknown) => console.error("svc client: loading the write queue failed:", error),
    )
    .then(() => {
      loaded = true;
    });

  const cancelWait = (): void => {
    if (timer !== null) timers.clearTimeout(timer);
    timer = null;
    stopOnline?.();
    stopOnline = null;
  };

  const wait = (error: SvcError): void => {
    const delay = backoffDelay(failures, { ...options.backoff, random });
    failures += 1;
    setState("waiting", error);
    timer = timers.setTimeout(() => {
      timer = null;
      void run();
    }, delay);
    // Back online: try now rather than at the end of the wait.
    const target = globalThis as {
      addEventListener?: (type: string, listener: () => void) => void;
      removeEventListener?: (type: string, listener: () => void) => void;
    };
    if (typeof target.addEventListener === "function") {
      const onOnline = (): void => void flush();
      target.addEventListener("online", onOnline);
      stopOnline = () => target.removeEventListener?.("online", onOnline);
    }
  };

  const finish = async (
    write: QueuedWrite,
    outcome: { response: TransportResponse<unknown> } | { error: SvcError },
  ): Promise<void> => {
    entries = entries.filter((entry) => entry !== write);
    await persist();
    const waiter = waiters.get(write);
    const batch = batches.get(write);
    waiters.delete(write);
    batches.delete(write);
    if ("response" in outcome) {
      const result = outcome.response.data;
      batch?.confirm(write.kind === "fn" ? undefined : rowOfAnswer(result));
      waiter?.resolve(result);
      const replayed = outcome.response.headers.get(REPLAYED_HEADER) === "true";
      emit({ type: "applied", write, result, replayed });
    } else {
      batch?.rollback();
      waiter?.reject(outcome.error);
      emit({ type: "dropped", write, error: outcome.error });
    }
  };

  const loop = async (): Promise<void> => {
    try {
      await ready;
      cancelWait();
      for (;;) {
        const write = entries[0];
        if (write === undefined) {
          setState("idle", null);
          return;
        }
        setState("sending", null);
        batches.get(write)?.sending();
        let outcome: { response: TransportResponse<unknown> } | { error: SvcError };
        try {
          outcome = { response: await transport.request<unknown>(requestOf(write)) };
        } catch (caught) {
          const error =
            caught instanceof SvcError
              ? caught
              : new SvcError(NETWORK_ERROR, "The write could not be sent.", {
                  status: 0,
                  cause: caught,
                });
          outcome = { error };
        }
        // Cleared while it was in flight: its outcome is nobody's any more.
        if (entries[0] !== write) continue;
        if ("error" in outcome && isTransientError(outcome.error)) {
          wait(outcome.error);
          return;
        }
        failures = 0;
        await finish(write, outcome);
      }
    } finally {
      // Synchronously with the last look at `entries`: a write queued after it starts a new run.
      running = null;
    }
  };

  const run = (): Promise<void> => {
    running ??= loop();
    return running;
  };

  const flush = (): Promise<void> => run();

  const enqueue = (make: () => QueuedWrite): Promise<unknown> => {
    const write = make();
    const settled = new Promise<unknown>((resolve, reject) => {
      waiters.set(write, { resolve, reject });
    });
    track(write);
    const add = async (): Promise<void> => {
      entries.push(write);
      const saved = persist();
      const waiting = timer !== null;
      setState(waiting ? "waiting" : "sending", waiting ? state.error : null);
      // Stored before it is sent: a reload in between sends it again.
      await saved;
      if (timer === null) void run();
    };
    // Once loaded, queued at once (in `state.pending` when the call returns); before, after the stored ones.
    if (loaded) void add();
    else void ready.then(add);
    return settled;
  };

  const clear = async (): Promise<void> => {
    await ready;
    const dropped = entries;
    entries = [];
    cancelWait();
    failures = 0;
    await persist();
    for (const write of dropped) {
      await finish(write, {
        error: new SvcError(QUEUE_CLEARED, "The queued write was cleared before it was sent.", {
          status: 0,
        }),
      });
    }
    setState("idle", null);
  };

  // Queued writes belong to whoever queued them: signing out drops them.
  context.tokens.subscribe((change) => {
    if (change.reason === "sign-out") void clear();
  });
  void ready.then(() => run());

  const entityWrite = (write: EntityWrite, opts: QueueEntityOptions | undefined) =>
    enqueue(() => ({
      ...write,
      key: opts?.idempotencyKey ?? newKey(),
      changes: opts?.optimistic === false ? [] : [entityWriteChange(write)],
    }));

  const handled = <T>(promise: Promise<unknown>): Promise<T> => {
    // The outcome is also an event: a caller that does not await is not an unhandled rejection.
    promise.catch(() => undefined);
    return promise as Promise<T>;
  };

  return {
    get state() {
      return state;
    },
    ready,
    fn(name, ...rest) {
      const [args, opts] = rest as unknown as [unknown, QueueFnOptions<TApi> | undefined];
      return handled(
        enqueue(() => ({
          kind: "fn",
          name,
          args: args ?? {},
          key: opts?.idempotencyKey ?? newKey(),
          changes: opts?.optimistic === undefined ? [] : recordOptimistic(opts.optimistic),
        })),
      );
    },
    insert(entity, data, opts) {
      const row = data as Readonly<Record<string, unknown>>;
      const id = typeof row.id === "string" ? row.id : generateId();
      return handled(entityWrite({ kind: "insert", entity, data: { ...row, id } }, opts));
    },
    update(entity, id, patch, opts) {
      const fields = patch as Readonly<Record<string, unknown>>;
      return handled(entityWrite({ kind: "update", entity, id, patch: fields }, opts));
    },
    delete(entity, id, opts) {
      return handled(entityWrite({ kind: "delete", entity, id }, opts));
    },
    flush,
    clear,
    subscribe(listener) {
      listeners.add(listener);
      return () => {
        listeners.delete(listener);
      };
    },
  };
}
