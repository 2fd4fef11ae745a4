import { vi } from "vitest";

/**
 * `vi.waitFor` with room for a loaded machine: the suites run beside every
 * other package's tests on two cores, where a server's answer can take well
 * over vitest's default second. Passing tests still return at the first
 * success; only a real failure waits the whole time.
 */
export function waitFor<T>(callback: () => T | Promise<T>): Promise<T> {
  return vi.waitFor(callback, { timeout: 10_000, interval: 20 });
}
