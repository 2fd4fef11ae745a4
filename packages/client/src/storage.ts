/**
 * Where the client keeps its session token: sync or async, so
 * `localStorage`, `sessionStorage`, React Native's AsyncStorage or a file
 * all fit behind a three-method adapter.
 *
 * @example
 * const storage: TokenStorage = {
 *   get: (key) => localStorage.getItem(key),
 *   set: (key, value) => localStorage.setItem(key, value),
 *   remove: (key) => localStorage.removeItem(key),
 * };
 */
export interface TokenStorage {
  get(key: string): string | null | undefined | Promise<string | null | undefined>;
  set(key: string, value: string): void | Promise<void>;
  remove(key: string): void | Promise<void>;
}

/** A `TokenStorage` in memory: the default; nothing survives a reload. */
export function createMemoryStorage(): TokenStorage {
  const values = new Map<string, string>();
  return {
    get: (key) => values.get(key) ?? null,
    set: (key, value) => {
      values.set(key, value);
    },
    remove: (key) => {
      values.delete(key);
    },
  };
}
