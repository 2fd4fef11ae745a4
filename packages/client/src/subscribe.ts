import type { OrderBy } from "./entities.js";
import type { SvcError } from "./errors.js";
import type { LiveLayer } from "./live.js";
import type { EntityRequest, LiveRow } from "./live-frames.js";
import { mergeOptimistic, type OptimisticStore, sameRows } from "./optimistic.js";

/** Options of `client.subscribe`. */
export interface SubscribeOptions<TFields> {
  /** ANDed equality filters; `null` matches null. Default: every row the caller may read. */
  readonly where?: { readonly [K in keyof TFields]?: TFields[K] | null };
  /**
   * The snapshot's order: a field, `-field` for descending, or
   * `{ field, direction }`. Default `id` ascending. Rows that come into
   * view later are appended (see `Subscription.rows`).
   */
  readonly orderBy?:
    | OrderBy<TFields>
    | {
        readonly field: (keyof TFields & string) | "id";
        readonly direction?: "asc" | "desc";
      };
  /** Bounds the snapshot (1..1000, default 100 on the server); live changes are not limited. */
  readonly limit?: number;
  /**
   * Called on a failure: a server `error` for this subscription (it is
   * then closed: `ENTITY_NOT_FOUND`, `INVALID_QUERY`, ...), or the caller
   * refused (`AUTH_REQUIRED`, kept open: a sign-in subscribes it anew).
   */
  readonly onError?: (error: SvcError) => void;
}

/** Receives an entity subscription's rows after every change. */
export type RowsListener<TRow> = (rows: readonly TRow[]) => void;

/** An open entity subscription. */
export interface Subscription<TRow> {
  /**
   * The rows now: the snapshot in its order, then rows that came into view
   * later, appended in arrival order; updates keep their place, deletes and
   * `remove`s drop the row. A new array after every change.
   */
  readonly rows: readonly TRow[];
  /** Resolves with the first snapshot's rows; rejects with the first failure before it. */
  readonly ready: Promise<readonly TRow[]>;
  /** Ends the subscription (the shared socket closes with the last one). */
  unsubscribe(): void;
}

/** Receives a live query's values: a function, or `{ onValue, onError }`. */
export type LiveQueryListener<T> =
  | ((value: T) => void)
  | {
      readonly onValue: (value: T) => void;
      /** A failure (`NOT_A_QUERY`, `INVALID_ARGS`, the function's own code, `AUTH_REQUIRED`). */
      readonly onError?: (error: SvcError) => void;
    };

/** An open live query. */
export interface LiveQuery<T> {
  /** The last value; undefined before the first, and after an identity change until the next. */
  readonly value: T | undefined;
  /** Resolves with the first value; rejects with the first failure before it. */
  readonly ready: Promise<T>;
  unsubscribe(): void;
}

function orderOf(
  orderBy: SubscribeOptions<Record<string, unknown>>["orderBy"],
): EntityRequest["orderBy"] {
  if (orderBy === undefined) return undefined;
  if (typeof orderBy === "object")
    return { field: orderBy.field, direction: orderBy.direction ?? "asc" };
  return orderBy.startsWith("-")
    ? { field: orderBy.slice(1), direction: "desc" }
    : { field: orderBy, direction: "asc" };
}

/**
 * `client.subscribe` over the live layer. The listener sees the live rows
 * with the client's optimistic changes applied (see `mergeOptimistic`),
 * from the first snapshot on.
 */
export function subscribeEntity<TRow>(
  live: LiveLayer,
  optimistic: OptimisticStore,
  entity: string,
  options: SubscribeOptions<Record<string, unknown>>,
  listener: RowsListener<TRow>,
): Subscription<TRow> {
  const orderBy = orderOf(options.orderBy);
  const request: EntityRequest = {
    entity,
    ...(options.where !== undefined && { where: options.where }),
    ...(orderBy !== undefined && { orderBy }),
    ...(options.limit !== undefined && { limit: options.limit }),
  };
  const where = options.where as Readonly<Record<string, unknown>> | undefined;
  // Optimistic changes show once there are live rows to show them over.
  let loaded = false;
  // A snapshot always reaches the listener, even one that shows nothing new.
  let freshSnapshot = false;
  let shown: readonly LiveRow[] = [];
  const show = (rows: readonly LiveRow[], always: boolean): void => {
    const next = loaded ? mergeOptimistic(rows, optimistic.changes(entity), where) : rows;
    if (!always && sameRows(next, shown)) return;
    shown = next;
    try {
      (listener as RowsListener<LiveRow>)(next);
    } catch (error) {
      console.error("svc client: a live listener threw:", error);
    }
  };
  const target = live.subscribe(
    request,
    (rows) => {
      const always = freshSnapshot;
      freshSnapshot = false;
      show(rows, always);
    },
    options.onError,
    (notice) => {
      if (notice.type === "snapshot") {
        // Retiring changes the snapshot holds must not show the rows twice.
        loaded = false;
        optimistic.observeSnapshot(entity);
        loaded = true;
        freshSnapshot = true;
      } else if (notice.type === "change") {
        optimistic.observeChange(entity, notice.rowId);
      } else {
        loaded = false;
        show(target.rows, false);
      }
    },
  );
  const closeView = optimistic.openView(entity);
  const stopChanges = optimistic.subscribe(entity, () => {
    if (loaded && !target.ended) show(target.rows, false);
  });
  const ready = target.ready.then(() => shown);
  // Like the target's own: callers may ignore it without an unhandled rejection.
  ready.catch(() => undefined);
  return {
    get rows() {
      return shown as unknown as readonly TRow[];
    },
    ready: ready as unknown as Promise<readonly TRow[]>,
    unsubscribe: () => {
      stopChanges();
      closeView();
      live.end(target);
    },
  };
}

/** `client.live` over the live layer. */
export function subscribeQuery<T>(
  live: LiveLayer,
  query: string,
  args: unknown,
  listener: LiveQueryListener<T>,
): LiveQuery<T> {
  const handlers = typeof listener === "function" ? { onValue: listener } : listener;
  const target = live.live<T>(query, args, handlers);
  return {
    get value() {
      return target.value;
    },
    ready: target.ready,
    unsubscribe: () => live.end(target as never),
  };
}
