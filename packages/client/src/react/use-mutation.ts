import { useCallback, useEffect, useRef, useState } from "react";
import type { SvcError } from "../errors.js";
import type { OptimisticWriter } from "../optimistic.js";
import type {
  FunctionArgs,
  FunctionName,
  FunctionResult,
  GivenOr,
  RegisteredApi,
} from "../types.js";
import { useSvcClient } from "./provider.js";

/** The state half of `useMutation`'s answer. */
export interface MutationState {
  /** True while a call is in flight. */
  readonly pending: boolean;
  /** The last call's failure; cleared when the next call starts. */
  readonly error: SvcError | null;
}

/** Options of `useMutation`; read at each call, so an inline object is fine. */
export interface MutationOptions<TArgs> {
  /**
   * What a call is expected to do to the rows on screen, given its
   * arguments: shown at once in every `useQuery` of the client, rolled
   * back if the call fails, replaced by the server's rows as they arrive
   * if it succeeds. Pass the same client-minted id (`generateId()`) to the
   * function and to `tx.insert`, so the server's row takes the optimistic
   * row's place.
   */
  readonly optimistic?: (tx: OptimisticWriter<RegisteredApi>, args: TArgs) => void;
  /**
   * Send through `client.queue` (held while offline, sent in order with
   * its idempotency key): `run` resolves once the write is applied, and
   * `pending` stays true until then. Default false.
   */
  readonly queued?: boolean;
}

/**
 * A server function as a callback: `run(args)` calls `client.fn(name,
 * args)` and resolves to its result (or rejects with its `SvcError`, which
 * is also kept in `error`). Live queries and subscriptions pick the
 * change up by themselves.
 *
 * With `optimistic`, the rows change on screen before the server answers.
 *
 * @example
 * const [createTodo, { pending, error }] = useMutation<{ title: string }, { id: string }>("createTodo");
 * <button disabled={pending} onClick={() => void createTodo({ title: "Milk" }).catch(() => {})}>Add</button>
 *
 * const [addTodo] = useMutation<{ id: string; title: string }, { id: string }>("addTodo", {
 *   optimistic: (tx, args) => tx.insert("Todo", { id: args.id, title: args.title, done: false }),
 * });
 * void addTodo({ id: generateId(), title: "Milk" });
 */
export function useMutation<TName extends FunctionName<RegisteredApi>>(
  name: TName,
  options?: MutationOptions<RegisteredApi["functions"][TName]["args"]>,
): [
  run: (
    ...args: FunctionArgs<RegisteredApi, TName>
  ) => Promise<FunctionResult<RegisteredApi, TName>>,
  state: MutationState,
];
/** The same with the argument and result types given by hand (only with them); nothing is checked. */
export function useMutation<TArgs = never, TResult = unknown>(
  name: GivenOr<TArgs, FunctionName<RegisteredApi>>,
  options?: MutationOptions<TArgs>,
): [run: (args?: TArgs) => Promise<TResult>, state: MutationState];
export function useMutation<TArgs, TResult>(
  name: string,
  options: MutationOptions<TArgs> = {},
): [run: (args?: TArgs) => Promise<TResult>, state: MutationState] {
  const client = useSvcClient();
  // The latest options, read at call time: `run` stays the same function across renders.
  const latest = useRef(options);
  latest.current = options;
  const [state, setState] = useState<MutationState>({ pending: false, error: null });
  const mounted = useRef(true);
  const calls = useRef(0);
  useEffect(() => {
    mounted.current = true;
    return () => {
      mounted.current = false;
    };
  }, []);
  const run = useCallback(
    async (args?: TArgs): Promise<TResult> => {
      calls.current += 1;
      const call = calls.current;
      // Only the latest call's outcome is shown; an unmounted component is left alone.
      const settle = (next: MutationState): void => {
        if (mounted.current && call === calls.current) setState(next);
      };
      settle({ pending: true, error: null });
      const { optimistic, queued } = latest.current;
      const body = (args ?? {}) as Record<string, unknown>;
      const update =
        optimistic === undefined
          ? undefined
          : (tx: OptimisticWriter<RegisteredApi>) => optimistic(tx, body as TArgs);
      try {
        const result = (
          queued === true
            ? await client.queue.fn(name, body, update === undefined ? {} : { optimistic: update })
            : await client.fn(name, body, update === undefined ? {} : { optimistic: update })
        ) as TResult;
        settle({ pending: false, error: null });
        return result;
      } catch (error) {
        settle({ pending: false, error: error as SvcError });
        throw error;
      }
    },
    [client, name],
  );
  return [run, state];
}
