import { useCallback, useEffect, useRef, useState } from "react";
import type { SvcError } from "../errors.js";
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

/**
 * A server function as a callback: `run(args)` calls `client.fn(name,
 * args)` and resolves to its result (or rejects with its `SvcError`, which
 * is also kept in `error`). Live queries and subscriptions pick the
 * change up by themselves.
 *
 * @example
 * const [createTodo, { pending, error }] = useMutation<{ title: string }, { id: string }>("createTodo");
 * <button disabled={pending} onClick={() => void createTodo({ title: "Milk" }).catch(() => {})}>Add</button>
 */
export function useMutation<TName extends FunctionName<RegisteredApi>>(
  name: TName,
): [
  run: (
    ...args: FunctionArgs<RegisteredApi, TName>
  ) => Promise<FunctionResult<RegisteredApi, TName>>,
  state: MutationState,
];
/** The same with the argument and result types given by hand (only with them); nothing is checked. */
export function useMutation<TArgs = never, TResult = unknown>(
  name: GivenOr<TArgs, FunctionName<RegisteredApi>>,
): [run: (args?: TArgs) => Promise<TResult>, state: MutationState];
export function useMutation<TArgs, TResult>(
  name: string,
): [run: (args?: TArgs) => Promise<TResult>, state: MutationState] {
  const client = useSvcClient();
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
      try {
        const result = (await client.fn(name, (args ?? {}) as Record<string, unknown>)) as TResult;
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
