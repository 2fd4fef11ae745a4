import { useMemo, useSyncExternalStore } from "react";
import type { SvcClient } from "../create-client.js";
import type { SvcError } from "../errors.js";
import { liveKey } from "../hydration.js";
import type { AnyApi, FunctionName, FunctionResult, GivenOr, RegisteredApi } from "../types.js";
import { useSvcClient } from "./provider.js";

/** What `useLiveQuery` answers. */
export interface LiveQueryState<T> {
  /** The query's last value; undefined until the first (and after an identity change). */
  readonly value: T | undefined;
  /** True until a value (or a failure) arrives. */
  readonly loading: boolean;
  /** The failure, when the query could not run (`NOT_A_QUERY`, `INVALID_ARGS`, ...). */
  readonly error: SvcError | null;
}

const LOADING: LiveQueryState<never> = { value: undefined, loading: true, error: null };

function liveStore<T>(client: SvcClient<AnyApi>, name: string, args: unknown, key: string) {
  // A value a server rendered with (`initialState`) shows at once, until
  // the live one replaces it (then it is forgotten).
  const prefetched = (): LiveQueryState<T> => {
    const held = client.hydration.value(key);
    return held === undefined ? LOADING : { value: held.value as T, loading: false, error: null };
  };
  const initial = prefetched();
  let state: LiveQueryState<T> = initial;
  return {
    getSnapshot: (): LiveQueryState<T> => state,
    getServerSnapshot: (): LiveQueryState<T> => initial,
    subscribe(notify: () => void): () => void {
      const query = client.live(name, args as Record<string, unknown>, {
        onValue(value) {
          client.hydration.forget(key);
          state = { value: value as T, loading: false, error: null };
          notify();
        },
        onError(error) {
          state = { ...state, loading: false, error };
          notify();
        },
      });
      // A new identity must not see the previous one's value.
      const stopAuth = client.onAuthChange(() => {
        state = LOADING;
        notify();
      });
      return () => {
        stopAuth();
        query.unsubscribe();
        state = prefetched();
      };
    },
  };
}

/**
 * A live query function's value, re-rendering whenever it changes
 * (`client.live` under `useSyncExternalStore`; WebSocket only). `args`
 * are compared by value.
 *
 * @example
 * const { value } = useLiveQuery<{ rows: Todo[] }>("listTodos", { limit: 20 });
 */
export function useLiveQuery<TName extends FunctionName<RegisteredApi>>(
  name: TName,
  args?: RegisteredApi["functions"][TName]["args"],
): LiveQueryState<FunctionResult<RegisteredApi, TName>>;
/** The same with the value type given by hand (only with the type argument); `args` are not checked. */
export function useLiveQuery<T = never>(
  name: GivenOr<T, FunctionName<RegisteredApi>>,
  args?: unknown,
): LiveQueryState<T>;
export function useLiveQuery<T>(name: string, args: unknown = {}): LiveQueryState<T> {
  const client = useSvcClient();
  const key = liveKey(name, args);
  // biome-ignore lint/correctness/useExhaustiveDependencies: `key` stands for the arguments by value.
  const store = useMemo(() => liveStore<T>(client, name, args, key), [client, key]);
  return useSyncExternalStore(store.subscribe, store.getSnapshot, store.getServerSnapshot);
}
