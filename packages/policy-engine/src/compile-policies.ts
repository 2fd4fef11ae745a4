import type { Manifest, PolicyDef } from "@svc/schema";
import { RuleChecker } from "./check-expression.js";
import type { CompiledJoinRule, CompiledPolicies, CompiledRule } from "./condition.js";
import {
  formatPolicyIssue,
  type PolicyAction,
  PolicyError,
  type PolicyIssue,
  policyErrorCodes,
} from "./errors.js";
import { parsePolicyExpression } from "./parse-expression.js";

/** The actions, in the order rules are checked and reported. */
export const POLICY_ACTIONS: readonly PolicyAction[] = ["read", "insert", "update", "delete"];

const RULE_OF: Readonly<Record<PolicyAction, keyof PolicyDef>> = {
  read: "allowRead",
  insert: "allowInsert",
  update: "allowUpdate",
  delete: "allowDelete",
};

function emptyRules(): Record<PolicyAction, CompiledRule[]> {
  return { read: [], insert: [], update: [], delete: [] };
}

/**
 * Parses and type-checks every rule of every policy in a validated manifest,
 * and every room kind's `join` rule (which reads `auth.*`, `room.name` and
 * `room.key`, and may use `exists(...)`; `data` and `existing` are refused).
 * An entity may have several policies: an action is allowed when any of its
 * rules allows it, and denied when the entity has none for it.
 *
 * Throws one `PolicyError` with code `INVALID_POLICIES` whose `issues` list
 * every problem (each with its own code: `POLICY_PARSE_ERROR`,
 * `POLICY_TYPE_ERROR` or `POLICY_LIMIT_EXCEEDED`) and whose message has one
 * line per problem, such as
 * `policy "own todos" (Todo.allowRead): unknown field data.owner at 16`.
 *
 * @example
 * const compiled = compilePolicies(parseManifest(json));
 * compiled.rules.get("Todo")?.read.length; // 1
 */
export function compilePolicies(manifest: Manifest): CompiledPolicies {
  const rules = new Map<string, Record<PolicyAction, CompiledRule[]>>();
  for (const entity of manifest.entities) rules.set(entity.name, emptyRules());
  const issues: PolicyIssue[] = [];
  for (const policy of manifest.policies) {
    const entity = manifest.entities.find((e) => e.name === policy.entity);
    const bucket = rules.get(policy.entity);
    if (entity === undefined || bucket === undefined) {
      // parseManifest rejects this; a hand-built manifest may not have been through it.
      issues.push({
        code: "POLICY_TYPE_ERROR",
        message: `unknown entity ${policy.entity} at 1`,
        column: 1,
        policy: policy.name,
      });
      continue;
    }
    for (const action of POLICY_ACTIONS) {
      const source = policy[RULE_OF[action]];
      if (typeof source !== "string") continue;
      const where = { policy: policy.name, entity: entity.name, action, source };
      let expr: ReturnType<typeof parsePolicyExpression>;
      try {
        expr = parsePolicyExpression(source);
      } catch (error) {
        if (!(error instanceof PolicyError)) throw error;
        for (const issue of error.issues) issues.push({ ...issue, ...where });
        continue;
      }
      const checker = new RuleChecker({ manifest, entity, action });
      const condition = checker.condition(expr);
      for (const issue of checker.issues) issues.push({ ...issue, ...where });
      if (condition !== null && checker.issues.length === 0) {
        bucket[action].push({
          policy: policy.name,
          entity: entity.name,
          action,
          source,
          expr,
          condition,
        });
      }
    }
  }
  const rooms = compileJoinRules(manifest, issues);
  if (issues.length > 0) {
    const lines = issues.map(formatPolicyIssue);
    throw new PolicyError("INVALID_POLICIES", {
      message: `${policyErrorCodes.INVALID_POLICIES.message.slice(0, -1)}: ${lines.join("; ")}`,
      issues,
    });
  }
  return { manifest, rules, rooms };
}

/** Parses and checks every room kind's join rule; problems go to `issues`. */
function compileJoinRules(
  manifest: Manifest,
  issues: PolicyIssue[],
): Map<string, CompiledJoinRule> {
  const rooms = new Map<string, CompiledJoinRule>();
  // A hand-built manifest may predate the rooms section.
  for (const room of manifest.rooms ?? []) {
    const source = room.join;
    let expr: ReturnType<typeof parsePolicyExpression>;
    try {
      expr = parsePolicyExpression(source);
    } catch (error) {
      if (!(error instanceof PolicyError)) throw error;
      for (const issue of error.issues) issues.push({ ...issue, room: room.name, source });
      continue;
    }
    const checker = new RuleChecker({ manifest, room: room.name });
    const condition = checker.condition(expr);
    for (const issue of checker.issues) issues.push({ ...issue, room: room.name, source });
    if (condition !== null && checker.issues.length === 0) {
      rooms.set(room.name, { room: room.name, source, expr, condition });
    }
  }
  return rooms;
}

/** The rules for one entity and action (empty when none allows it). */
export function rulesFor(
  compiled: CompiledPolicies,
  entity: string,
  action: PolicyAction,
): readonly CompiledRule[] {
  const rules = compiled.rules.get(entity);
  if (rules === undefined) {
    throw new PolicyError("UNKNOWN_ENTITY", { message: `The manifest has no entity ${entity}.` });
  }
  return rules[action];
}
