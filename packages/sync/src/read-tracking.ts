import { AsyncLocalStorage } from "node:async_hooks";
import { parsePolicyExpression } from "@svc/policy-engine";
import type { AuthContext, Manifest } from "@svc/schema";
import type { EntityReader, Store } from "@svc/store";

/** What a live query's run read: the entities whose changes may change its value. */
export type ReadSet = ReadonlySet<string>;

/**
 * Runs query functions for live subscriptions; the composed server builds
 * one from its function runner over `createReadTracker(store).store`.
 */
export interface LiveQueryRunner {
  /**
   * Runs query function `name` as `auth` and answers its JSON-ready value
   * with the entities it read. Rejects with a wire error (a function's own
   * code such as `INVALID_ARGS` or `FUNCTION_NOT_FOUND`, or `NOT_A_QUERY`).
   */
  run(name: string, args: unknown, auth: AuthContext): Promise<{ value: unknown; reads: ReadSet }>;
}

/** A store whose reads are recorded per tracked call (see `createReadTracker`). */
export interface ReadTracker {
  /** Pass to whatever runs the functions: reads through it are recorded. */
  readonly store: Store;
  /** Runs `work` and answers its value with the entities read through `store` meanwhile. */
  track<T>(work: () => Promise<T>): Promise<{ value: T; reads: ReadSet }>;
}

/**
 * Records which entities a function reads, without changing the function
 * runner: `store.reader(auth)` and `store.systemReader()` of the returned
 * store add each entity they are asked for to the read set of the
 * `track` call they run under (an async context, so concurrent runs never
 * mix their sets).
 *
 * @example
 * const tracker = createReadTracker(store);
 * const runner = createFunctionRunner({ store: tracker.store, functions });
 * const { value, reads } = await tracker.track(() => runner.run("listTodos", {}, auth));
 */
export function createReadTracker(store: Store): ReadTracker {
  const current = new AsyncLocalStorage<Set<string>>();
  const recording = (reader: EntityReader): EntityReader => ({
    get(entity, id) {
      current.getStore()?.add(entity);
      return reader.get(entity, id);
    },
    query(entity, options) {
      current.getStore()?.add(entity);
      return reader.query(entity, options);
    },
  });
  return {
    store: {
      ...store,
      reader: (auth) => recording(store.reader(auth)),
      systemReader: () => recording(store.systemReader()),
    },
    async track(work) {
      const reads = new Set<string>();
      const value = await current.run(reads, work);
      return { value, reads };
    },
  };
}

/** Every `exists(<Entity> ...)` an expression node holds, walked generically. */
function collectExists(node: unknown, into: Set<string>): void {
  if (node === null || typeof node !== "object") return;
  if (Array.isArray(node)) {
    for (const item of node) collectExists(item, into);
    return;
  }
  const record = node as Record<string, unknown>;
  if (record.kind === "exists" && typeof record.entity === "string") into.add(record.entity);
  for (const value of Object.values(record)) collectExists(value, into);
}

/**
 * For each entity, the entities its read rules look up with `exists(...)`,
 * followed transitively: a change to any of them can change what a
 * caller may read of it, so a live query that read the entity reruns.
 */
export function readDependencies(manifest: Manifest): ReadonlyMap<string, ReadonlySet<string>> {
  const direct = new Map<string, Set<string>>();
  for (const policy of manifest.policies) {
    if (policy.allowRead === undefined) continue;
    const into = direct.get(policy.entity) ?? new Set<string>();
    direct.set(policy.entity, into);
    try {
      collectExists(parsePolicyExpression(policy.allowRead), into);
    } catch {
      // A manifest that parsed has valid rules; nothing to add otherwise.
    }
  }
  const closed = new Map<string, ReadonlySet<string>>();
  for (const entity of direct.keys()) {
    const seen = new Set<string>();
    const pending = [entity];
    while (pending.length > 0) {
      const next = pending.pop() as string;
      for (const looked of direct.get(next) ?? []) {
        if (!seen.has(looked)) {
          seen.add(looked);
          pending.push(looked);
        }
      }
    }
    closed.set(entity, seen);
  }
  return closed;
}

/** The entities whose changes can change a run's value: what it read, and their rules' lookups. */
export function watchedEntities(
  reads: ReadSet,
  dependencies: ReadonlyMap<string, ReadonlySet<string>>,
): ReadSet {
  const watched = new Set(reads);
  for (const entity of reads)
    for (const looked of dependencies.get(entity) ?? []) watched.add(looked);
  return watched;
}
