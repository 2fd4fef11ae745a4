import type { CompiledJoinRule, PolicyAuth } from "./condition.js";
import { type ExistsResolver, evaluateRule, evaluateRuleAsync } from "./evaluate.js";

/** Who asks to join which room instance. */
export interface JoinRequest {
  readonly auth: PolicyAuth;
  /** The room kind (`/shard/<name>`). */
  readonly name: string;
  /** The instance key (`/shard/<name>/<key>`), or null for the kind's single instance. */
  readonly key: string | null;
}

/**
 * Decides whether a caller may join a room instance with the reference
 * evaluator: true when the kind's join rule allows it. `exists(...)` goes to
 * `resolveExists` (without one, a rule that reaches `exists` throws
 * `EXISTS_UNRESOLVED`). Admin bypass is the caller's business.
 *
 * @example
 * const rule = compilePolicies(manifest).rooms.get("game");
 * const allowed = rule !== undefined && (await checkJoin(rule, { auth, name: "game", key: "g1" }));
 */
export async function checkJoin(
  rule: CompiledJoinRule,
  request: JoinRequest,
  resolveExists?: ExistsResolver,
): Promise<boolean> {
  const input = { auth: request.auth, room: { name: request.name, key: request.key } };
  const outcome =
    resolveExists === undefined
      ? evaluateRule(rule, input)
      : await evaluateRuleAsync(rule, input, resolveExists);
  return outcome.value;
}
