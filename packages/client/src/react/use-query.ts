import { useMemo, useSyncExternalStore } from "react";
import type { SvcClient } from "../create-client.js";
import type { SvcError } from "../errors.js";
import { queryKey } from "../hydration.js";
import type { SubscribeOptions } from "../subscribe.js";
import type { AnyApi, EntityName, EntityRow, GivenOr, RegisteredApi } from "../types.js";
import { useSvcClient } from "./provider.js";

/** What `useQuery` answers. */
export interface QueryState<TRow> {
  /** The live rows (see `Subscription.rows`); empty until the snapshot comes. */
  readonly rows: readonly TRow[];
  /** True until the first snapshot (or a failure) arrives. */
  readonly loading: boolean;
  /** The last failure (`onError`), cleared by the next rows. */
  readonly error: SvcError | null;
}

const LOADING: QueryState<never> = { rows: [], loading: true, error: null };

/** One mounted `useQuery`: opens the subscription when React subscribes, ends it on cleanup. */
function rowsStore<TRow>(
  client: SvcClient<AnyApi>,
  entity: string,
  options: SubscribeOptions<Record<string, unknown>>,
  key: string,
) {
  // Rows a server rendered with (`initialState`) show at once, on the
  // server and in the hydrating browser alike, until the live snapshot
  // replaces them (then they are forgotten).
  const prefetched = (): QueryState<TRow> => {
    const rows = client.hydration.rows(key);
    return rows === undefined
      ? LOADING
      : { rows: rows as readonly TRow[], loading: false, error: null };
  };
  const initial = prefetched();
  let state: QueryState<TRow> = initial;
  return {
    getSnapshot: (): QueryState<TRow> => state,
    getServerSnapshot: (): QueryState<TRow> => initial,
    subscribe(notify: () => void): () => void {
      const subscription = client.subscribe(
        entity,
        {
          ...options,
          onError(error) {
            state = { ...state, loading: false, error };
            notify();
            options.onError?.(error);
          },
        },
        (rows) => {
          client.hydration.forget(key);
          state = { rows: rows as unknown as readonly TRow[], loading: false, error: null };
          notify();
        },
      );
      return () => {
        subscription.unsubscribe();
        state = prefetched();
      };
    },
  };
}

/**
 * Live rows of one entity, re-rendering on every change the caller may
 * see (`client.subscribe` under `useSyncExternalStore`). The subscription
 * follows `entity`, `where`, `orderBy` and `limit` by value, so inline
 * option objects are fine. With an `Api` registered (`Register`), the
 * entity, its `where` fields and the rows are typed from it.
 *
 * @example
 * function Todos() {
 *   const { rows, loading } = useQuery<Todo>("Todo", { where: { done: false }, orderBy: "title" });
 *   if (loading) return <p>Loading…</p>;
 *   return <ul>{rows.map((todo) => <li key={todo.id}>{todo.title}</li>)}</ul>;
 * }
 */
export function useQuery<TName extends EntityName<RegisteredApi>>(
  entity: TName,
  options?: SubscribeOptions<RegisteredApi["entities"][TName]>,
): QueryState<EntityRow<RegisteredApi["entities"][TName]>>;
/**
 * The same with the row type given by hand (`useQuery<Todo>("Todo")`, for
 * an app without a registered Api); `where` is not checked. Only with the
 * type argument: a call that fails the typed form never lands here.
 */
export function useQuery<TRow = never>(
  entity: GivenOr<TRow, EntityName<RegisteredApi>>,
  options?: SubscribeOptions<Record<string, unknown>>,
): QueryState<TRow>;
export function useQuery<TRow>(
  entity: string,
  options: SubscribeOptions<Record<string, unknown>> = {},
): QueryState<TRow> {
  const client = useSvcClient();
  const key = queryKey(entity, options);
  // biome-ignore lint/correctness/useExhaustiveDependencies: `key` stands for the options by value.
  const store = useMemo(() => rowsStore<TRow>(client, entity, options, key), [client, key]);
  return useSyncExternalStore(store.subscribe, store.getSnapshot, store.getServerSnapshot);
}
