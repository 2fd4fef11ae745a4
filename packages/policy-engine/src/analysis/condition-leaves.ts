import type { Condition } from "../condition.js";

/** A condition that is not `and`, `or` or `not`: a comparison, a truthy test or a lookup. */
export type LeafCondition = Exclude<Condition, { readonly kind: "and" | "or" | "not" }>;

/**
 * The leaves of `condition` in order, looking through `and`, `or` and
 * `not` (a negated leaf is yielded as it is): for the analyses that ask
 * which comparisons or lookups a rule mentions, wherever they stand.
 *
 * @example
 * const lookups = [...leavesOf(rule.condition)].filter((leaf) => leaf.kind === "exists");
 */
export function* leavesOf(condition: Condition): Generator<LeafCondition> {
  switch (condition.kind) {
    case "and":
    case "or":
      for (const item of condition.items) yield* leavesOf(item);
      return;
    case "not":
      yield* leavesOf(condition.item);
      return;
    default:
      yield condition;
  }
}
