import { findEntity, ownerField } from "@svc/schema";
import { rulesFor } from "../compile-policies.js";
import type { CompiledPolicies, CompiledRule, PolicyAuth, PolicyRow } from "../condition.js";
import { type PolicyAction, ruleKey } from "../errors.js";
import { type ExistsLookup, evaluateRule } from "../evaluate.js";
import { completeRow } from "./rows.js";

/** One rule's outcome: the policy, the rule as written and the part (as written) that settled it. */
export interface RuleTrace {
  readonly policy: string;
  readonly action: PolicyAction;
  readonly source: string;
  readonly value: boolean;
  /** The sub-expression that settled the rule, as written. */
  readonly decidedBy: string;
  /** Its 1-based column in `source`. */
  readonly column: number;
}

/**
 * What decided an access, the way the store decides it: the admin token,
 * the entity gate (no rule for the action), the owner field, the read
 * policy hiding the row an update or delete names, or the rules themselves.
 */
export type AccessDecider =
  | { readonly kind: "admin" }
  | { readonly kind: "no-rule" }
  | { readonly kind: "owner-mismatch"; readonly field: string }
  | { readonly kind: "owner-immutable"; readonly field: string }
  | { readonly kind: "not-visible"; readonly rules: readonly RuleTrace[] }
  | { readonly kind: "rule"; readonly rule: RuleTrace }
  | { readonly kind: "rules"; readonly rules: readonly RuleTrace[] };

/** An access decided as the store would decide it, with what decided it. */
export interface AccessDecision {
  readonly allowed: boolean;
  readonly decider: AccessDecider;
  /** The row the rules saw as `data` (an insert's after owner stamping; an update's merged row). */
  readonly data?: PolicyRow;
}

/** One access to decide as the store would. */
export interface StoreAccessRequest {
  readonly entity: string;
  readonly action: PolicyAction;
  readonly auth: PolicyAuth;
  /** Insert: the row given (the owner is stamped as the store does). Update: the patch. */
  readonly data?: PolicyRow;
  /** Update, delete, and read: the stored row. A read passes its row here or as `data`. */
  readonly existing?: PolicyRow;
  /** Answers `exists(...)` over the stored rows. */
  readonly lookup: ExistsLookup;
}

function trace(
  rule: CompiledRule,
  input: { auth: PolicyAuth; data?: PolicyRow; existing?: PolicyRow; lookup: ExistsLookup },
): RuleTrace {
  const outcome = evaluateRule(rule, input);
  const { start, end } = outcome.decidedBy.expr;
  // The whole rule reads best as written (its span leaves out closing parentheses).
  const whole = outcome.decidedBy === rule.condition;
  return {
    policy: rule.policy,
    action: rule.action,
    source: rule.source,
    value: outcome.value,
    decidedBy: whole ? rule.source.trim() : rule.source.slice(start, end),
    column: whole ? 1 : start + 1,
  };
}

function decideRules(
  rules: readonly CompiledRule[],
  input: { auth: PolicyAuth; data?: PolicyRow; existing?: PolicyRow; lookup: ExistsLookup },
): { allowed: boolean; traces: RuleTrace[] } {
  const traces: RuleTrace[] = [];
  for (const rule of rules) {
    const traced = trace(rule, input);
    traces.push(traced);
    if (traced.value) return { allowed: true, traces };
  }
  return { allowed: false, traces };
}

/**
 * The store's write preparation that comes before any rule: an insert's
 * owner field is stamped with the caller's user id (a different value is
 * refused), an update's patch may not change it. Returns the row the rules
 * see as `data`, or the decider that refused.
 */
export function prepareData(
  compiled: CompiledPolicies,
  request: Pick<StoreAccessRequest, "entity" | "action" | "auth" | "data" | "existing">,
): { data?: PolicyRow; refused?: AccessDecider } {
  const owner = findOwner(compiled, request.entity);
  if (request.action === "insert") {
    const data: Record<string, unknown> = { ...request.data };
    if (owner !== undefined && request.auth.userId !== null) {
      const given = data[owner];
      if (given !== undefined && given !== null && given !== request.auth.userId) {
        return { data, refused: { kind: "owner-mismatch", field: owner } };
      }
      data[owner] = request.auth.userId;
    }
    const def = findEntity(compiled.manifest, request.entity);
    return { data: def === undefined ? data : completeRow(def, data) };
  }
  if (request.action === "update") {
    const patch = request.data ?? {};
    if (
      owner !== undefined &&
      patch[owner] !== undefined &&
      patch[owner] !== request.existing?.[owner]
    ) {
      return {
        data: { ...request.existing, ...patch },
        refused: { kind: "owner-immutable", field: owner },
      };
    }
    return { data: { ...request.existing, ...patch } };
  }
  if (request.action === "read") {
    const data = request.data ?? request.existing;
    return data === undefined ? {} : { data };
  }
  return {};
}

function findOwner(compiled: CompiledPolicies, entity: string): string | undefined {
  const def = findEntity(compiled.manifest, entity);
  return def === undefined ? undefined : ownerField(def)?.name;
}

/**
 * Decides an access the way `@svc/store` does, with the reference
 * evaluator: the admin token is allowed everything; an action no policy
 * has a rule for is denied (the entity gate); an insert's owner field is
 * stamped with the caller's id (another value is refused, `OWNER_MISMATCH`);
 * an update may not change it (`OWNER_IMMUTABLE`); an update or delete sees
 * only rows the caller may read (otherwise `NOT_FOUND`); then the first rule
 * that holds allows. Reports what decided.
 *
 * @example
 * decideStoreAccess(compiled, { entity: "Todo", action: "read", auth, existing: row, lookup }).decider;
 * // { kind: "rule", rule: { policy: "own todos", decidedBy: "auth.userId == data.ownerId", ... } }
 */
export function decideStoreAccess(
  compiled: CompiledPolicies,
  request: StoreAccessRequest,
): AccessDecision {
  const { entity, action, auth, lookup } = request;
  if (auth.isAdmin) return { allowed: true, decider: { kind: "admin" } };
  const rules = rulesFor(compiled, entity, action);
  if (rules.length === 0) return { allowed: false, decider: { kind: "no-rule" } };
  const prepared = prepareData(compiled, request);
  const data = prepared.data;
  const withData = data === undefined ? {} : { data };
  if (prepared.refused !== undefined) {
    return { allowed: false, decider: prepared.refused, ...withData };
  }
  const existing = request.existing;
  if ((action === "update" || action === "delete") && existing !== undefined) {
    const read = decideRules(rulesFor(compiled, entity, "read"), { auth, data: existing, lookup });
    if (!read.allowed) {
      return { allowed: false, decider: { kind: "not-visible", rules: read.traces }, ...withData };
    }
  }
  const input = {
    auth,
    lookup,
    ...withData,
    ...(existing !== undefined && action !== "insert" && action !== "read" && { existing }),
  };
  const outcome = decideRules(rules, input);
  const last = outcome.traces[outcome.traces.length - 1];
  return outcome.allowed && last !== undefined
    ? { allowed: true, decider: { kind: "rule", rule: last }, ...withData }
    : { allowed: false, decider: { kind: "rules", rules: outcome.traces }, ...withData };
}

function describeTrace(rule: RuleTrace, entity: string): string {
  return `policy ${JSON.stringify(rule.policy)} (${entity}.${ruleKey(rule.action)}): ${rule.decidedBy} ${rule.value ? "holds" : "is false"}`;
}

/**
 * One sentence saying what decided: `allowed by policy "own todos"
 * (Todo.allowRead): auth.userId == data.ownerId holds`, `denied: the admin
 * token ...`, `denied: no policy of Todo has an allowDelete rule`.
 */
export function describeDecider(
  decider: AccessDecider,
  entity: string,
  action: PolicyAction,
): string {
  switch (decider.kind) {
    case "admin":
      return "allowed: the admin token bypasses every policy";
    case "no-rule":
      return `denied: no policy of ${entity} has an ${ruleKey(action)} rule (only the admin token may ${action})`;
    case "owner-mismatch":
      return `denied by the store: the owner field ${entity}.${decider.field} must be the caller's user id (OWNER_MISMATCH)`;
    case "owner-immutable":
      return `denied by the store: the owner field ${entity}.${decider.field} cannot change (OWNER_IMMUTABLE)`;
    case "not-visible":
      return `denied: the caller cannot read the row, so the store answers NOT_FOUND (${decider.rules.map((rule) => describeTrace(rule, entity)).join("; ")})`;
    case "rule":
      return `allowed by ${describeTrace(decider.rule, entity)}`;
    case "rules":
      return `denied: ${decider.rules.map((rule) => describeTrace(rule, entity)).join("; ")}`;
  }
}
