import { rulesFor } from "./compile-policies.js";
import type { CompiledPolicies, PolicyAuth, PolicyRow } from "./condition.js";
import type { PolicyAction } from "./errors.js";
import {
  type ExistsLookup,
  type ExistsResolver,
  evaluateRule,
  evaluateRuleAsync,
} from "./evaluate.js";

/** One access to decide: who does what to which row. */
export interface AccessRequest {
  readonly entity: string;
  readonly action: PolicyAction;
  readonly auth: PolicyAuth;
  /** The row (read), the new row after owner stamping (insert) or the merged row (update). */
  readonly data?: PolicyRow;
  /** The stored row (update, delete). */
  readonly existing?: PolicyRow;
}

/** The outcome of an access check: expected denials are data, not errors. */
export interface AccessVerdict {
  readonly allowed: boolean;
  /** The first policy (in manifest order) whose rule allowed it; null when denied. */
  readonly policy: string | null;
}

const DENIED: AccessVerdict = Object.freeze({ allowed: false, policy: null });

/**
 * Decides an access with the reference evaluator: allowed when any policy's
 * rule for the action allows it, denied when none does or the entity has no
 * rule for the action. Throws `UNKNOWN_ENTITY` for an entity not in the
 * manifest, and `EXISTS_UNRESOLVED` if a rule reaches `exists(...)` without
 * `lookup`. Admin bypass is the caller's business.
 *
 * @example
 * evaluateAccess(compiled, { entity: "Todo", action: "read", auth, data: row }).allowed;
 */
export function evaluateAccess(
  compiled: CompiledPolicies,
  request: AccessRequest & { readonly lookup?: ExistsLookup },
): AccessVerdict {
  for (const rule of rulesFor(compiled, request.entity, request.action)) {
    if (evaluateRule(rule, request).value) return { allowed: true, policy: rule.policy };
  }
  return DENIED;
}

/**
 * Decides an access the way the store checks writes: rules are evaluated in
 * memory against `data`/`existing`, and each `exists(...)` reached is handed
 * to `resolveExists` (typically one indexed query). Rules are tried in
 * manifest order and stop at the first that allows.
 *
 * @example
 * const verdict = await checkAccess(
 *   compiled,
 *   { entity: "Todo", action: "update", auth, data: merged, existing: stored },
 *   async (entity, conditions) => (await findRow(trx, entity, conditions)) !== undefined,
 * );
 * if (!verdict.allowed) return forbidden();
 */
export async function checkAccess(
  compiled: CompiledPolicies,
  request: AccessRequest,
  resolveExists: ExistsResolver,
): Promise<AccessVerdict> {
  for (const rule of rulesFor(compiled, request.entity, request.action)) {
    const outcome = await evaluateRuleAsync(rule, request, resolveExists);
    if (outcome.value) return { allowed: true, policy: rule.policy };
  }
  return DENIED;
}
