import { findEntity } from "@svc/schema";
import { compilePolicies, POLICY_ACTIONS } from "../compile-policies.js";
import type { CompiledPolicies, CompiledRule } from "../condition.js";
import {
  formatPolicyIssue,
  type PolicyAction,
  PolicyError,
  policyErrorCodes,
  ruleKey,
} from "../errors.js";

/** A claim about who may do what: `Todo.read: auth.userId == data.ownerId || auth.isAdmin`. */
export interface Claim {
  readonly entity: string;
  readonly action: PolicyAction;
  /** The expression, checked as a rule of the entity and action (same variables, same types). */
  readonly rule: CompiledRule;
}

const CLAIM = /^\s*([A-Za-z_][A-Za-z0-9_]*)\.([a-z]+)\s*:(.*)$/s;

function invalid(detail: string): PolicyError {
  return new PolicyError("INVALID_CLAIM", {
    message: `${policyErrorCodes.INVALID_CLAIM.message.slice(0, -1)}: ${detail}`,
  });
}

/**
 * Parses `<Entity>.<action>: <expression>` and checks the expression as a
 * rule of that entity and action (so `existing` is refused in a read claim,
 * fields must exist, and so on). Throws `INVALID_CLAIM` naming the problem.
 *
 * @example
 * parseClaim(compiled, "Todo.read: auth.userId == data.ownerId").rule.source;
 */
export function parseClaim(compiled: CompiledPolicies, text: string): Claim {
  if (text.length > 4096) throw invalid("it is longer than 4096 characters");
  const match = CLAIM.exec(text);
  if (match === null)
    throw invalid(
      `expected e.g. "Todo.read: auth.userId == data.ownerId", got ${JSON.stringify(text.slice(0, 80))}`,
    );
  const [, entity = "", actionText = "", source = ""] = match;
  const action = POLICY_ACTIONS.find((candidate) => candidate === actionText);
  if (action === undefined)
    throw invalid(`the action must be one of ${POLICY_ACTIONS.join(", ")}, not ${actionText}`);
  if (findEntity(compiled.manifest, entity) === undefined)
    throw invalid(`the manifest has no entity ${entity}`);
  const expression = source.trim();
  if (expression === "") throw invalid("the expression is empty");
  let checked: CompiledPolicies;
  try {
    checked = compilePolicies({
      ...compiled.manifest,
      rooms: [],
      policies: [{ name: "claim", entity, [ruleKey(action)]: expression }],
    });
  } catch (error) {
    if (!(error instanceof PolicyError)) throw error;
    throw invalid(
      error.issues.map((issue) => formatPolicyIssue({ ...issue, policy: "claim" })).join("; "),
    );
  }
  const rule = checked.rules.get(entity)?.[action][0];
  if (rule === undefined) throw invalid("the expression did not compile");
  return { entity, action, rule };
}
