import type { ExistsLookupCondition, ExistsResolver } from "@svc/policy-engine";
import { type EntityReader, StoreError } from "@svc/store";

/** Default bound of cached `exists(...)` answers before the cache starts over. */
export const DEFAULT_EXISTS_CACHE_ENTRIES = 10_000;

/**
 * Answers of `exists(...)` rules shared by every subscriber, kept until a
 * change to the entity they read is published.
 */
export interface ExistsCache {
  /** Resolves through the cache; a miss runs one indexed query. */
  readonly resolve: ExistsResolver;
  /** Drops every answer that read one of `entities` (call before delivering their changes). */
  invalidate(entities: Iterable<string>): void;
  /** Drops every answer (after a reset). */
  clear(): void;
  /** Cached answers, for tests and metrics. */
  readonly size: number;
}

/**
 * A cache of `exists(...)` answers over the store's system reader.
 *
 * A rule's conditions already carry the caller's values (`auth.userId`,
 * the row's fields), so an answer keyed by entity and conditions holds for
 * every caller: a change fanned out to a thousand subscribers costs one
 * query per distinct lookup, and the next change none, until a change to
 * the looked-up entity is published. An answer still being read when its
 * entity changes is dropped with the rest, so it is never reused.
 *
 * Like pulls, answers reflect the current rows, not those at the time of
 * the change being checked.
 */
export function createExistsCache(
  reader: EntityReader,
  maxEntries = DEFAULT_EXISTS_CACHE_ENTRIES,
): ExistsCache {
  const byEntity = new Map<string, Map<string, Promise<boolean>>>();
  let size = 0;

  const lookup = (entity: string, conditions: readonly ExistsLookupCondition[]) => {
    const where = Object.fromEntries(
      conditions.map((condition) => [condition.field, condition.value]),
    );
    return reader.query(entity, { where, limit: 1 }).then(
      (page) => page.rows.length > 0,
      (error: unknown) => {
        // A value no row can hold (not an id, out of an enum) matches nothing.
        if (error instanceof StoreError && error.code === "INVALID_QUERY") return false;
        throw error;
      },
    );
  };

  return {
    resolve(entity, conditions) {
      const key = JSON.stringify(conditions.map((condition) => [condition.field, condition.value]));
      let answers = byEntity.get(entity);
      const cached = answers?.get(key);
      if (cached !== undefined) return cached;
      if (size >= maxEntries) {
        byEntity.clear();
        size = 0;
        answers = undefined;
      }
      if (answers === undefined) {
        answers = new Map();
        byEntity.set(entity, answers);
      }
      const answer = lookup(entity, conditions);
      answers.set(key, answer);
      size += 1;
      // A failed lookup is not remembered: the next check asks again.
      const entries = answers;
      answer.catch(() => {
        if (byEntity.get(entity) === entries && entries.get(key) === answer) {
          entries.delete(key);
          size -= 1;
        }
      });
      return answer;
    },
    invalidate(entities) {
      for (const entity of entities) {
        const answers = byEntity.get(entity);
        if (answers === undefined) continue;
        size -= answers.size;
        byEntity.delete(entity);
      }
    },
    clear() {
      byEntity.clear();
      size = 0;
    },
    get size() {
      return size;
    },
  };
}
