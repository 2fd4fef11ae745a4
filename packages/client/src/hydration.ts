import type { SubscribeOptions } from "./subscribe.js";

/**
 * What a server rendered with (`createServerClient(...).dehydrate()`): the
 * rows of entity queries and the values of live queries, by key. Plain
 * JSON; embed it in the page with `serializeState` and pass it to the
 * browser's `createClient({ initialState })`.
 */
export interface HydrationState {
  readonly v: 1;
  /** Entity query rows by `queryKey`. */
  readonly rows: Readonly<Record<string, readonly unknown[]>>;
  /** Live query values by `liveKey`. */
  readonly values: Readonly<Record<string, unknown>>;
}

/** Prefetched data a client starts from, read by the React hooks for their first render. */
export interface HydrationCache {
  rows(key: string): readonly unknown[] | undefined;
  value(key: string): { readonly value: unknown } | undefined;
  setRows(key: string, rows: readonly unknown[]): void;
  setValue(key: string, value: unknown): void;
  /** Drops one entry (a live answer replaced it). */
  forget(key: string): void;
  /** Drops everything (the identity changed: prefetched data was someone else's view). */
  clear(): void;
  /** Everything held, as JSON-ready state. */
  toState(): HydrationState;
}

/** The key of an entity query: the entity and its options by value (as `useQuery` compares them). */
export function queryKey(
  entity: string,
  options: Pick<SubscribeOptions<Record<string, unknown>>, "where" | "orderBy" | "limit"> = {},
): string {
  return JSON.stringify([
    entity,
    options.where ?? null,
    options.orderBy ?? null,
    options.limit ?? null,
  ]);
}

/** The key of a live query: its name and arguments by value. */
export function liveKey(name: string, args: unknown): string {
  return JSON.stringify([name, args ?? null]);
}

function isState(value: unknown): value is HydrationState {
  if (value === null || typeof value !== "object") return false;
  const state = value as Partial<HydrationState>;
  return (
    state.v === 1 &&
    typeof state.rows === "object" &&
    state.rows !== null &&
    typeof state.values === "object" &&
    state.values !== null
  );
}

/** A cache holding `initial` (ignored unless it is a `HydrationState` of this version). */
export function createHydrationCache(initial?: unknown): HydrationCache {
  const rows = new Map<string, readonly unknown[]>();
  const values = new Map<string, unknown>();
  if (isState(initial)) {
    for (const [key, list] of Object.entries(initial.rows)) {
      if (Array.isArray(list)) rows.set(key, list);
    }
    for (const [key, value] of Object.entries(initial.values)) values.set(key, value);
  }
  return {
    rows: (key) => rows.get(key),
    value: (key) => (values.has(key) ? { value: values.get(key) } : undefined),
    setRows: (key, list) => rows.set(key, list),
    setValue: (key, value) => values.set(key, value),
    forget(key) {
      rows.delete(key);
      values.delete(key);
    },
    clear() {
      rows.clear();
      values.clear();
    },
    toState: () => ({
      v: 1,
      rows: Object.fromEntries(rows),
      values: Object.fromEntries(values),
    }),
  };
}

const UNSAFE_IN_SCRIPT: Record<string, string> = {
  "<": "\\u003c",
  ">": "\\u003e",
  "&": "\\u0026",
  "\u2028": "\\u2028",
  "\u2029": "\\u2029",
};

/**
 * `state` as JSON that is safe inside an inline `<script>`: `<`, `>` and `&`
 * are escaped, so a row holding `</script>` cannot end the script (or open
 * another tag), and U+2028/U+2029 cannot break older parsers.
 *
 * @example
 * html += `<script>window.__SVC_STATE__ = ${serializeState(server.dehydrate())}</script>`;
 */
export function serializeState(state: HydrationState): string {
  return JSON.stringify(state).replace(
    /[<>&\u2028\u2029]/g,
    (char) => UNSAFE_IN_SCRIPT[char] ?? char,
  );
}
