import type { FieldKind } from "@svc/schema";
import type { CompiledRule, Condition, Operand, PolicyAuth, PolicyRow } from "./condition.js";
import { PolicyError } from "./errors.js";
import {
  compareResolved,
  hasEntitlement,
  hasRole,
  type PolicyValue,
  type ResolvedSide,
  readAuth,
  readField,
} from "./values.js";

/** One `<field> == <value>` an `exists(...)` asks about; `value: null` means "the field is null". */
export interface ExistsLookupCondition {
  readonly field: string;
  /** The field's kind (`id` for the record id), so a store can encode the value. */
  readonly type: FieldKind;
  readonly value: PolicyValue;
}

/**
 * Answers `exists(entity where ...)`: whether any stored row of `entity`
 * meets every condition. Rows are not filtered by the entity's own policies.
 */
export type ExistsLookup = (
  entity: string,
  conditions: readonly ExistsLookupCondition[],
) => boolean;

/** The asynchronous form of `ExistsLookup`, for a store that runs a query. */
export type ExistsResolver = (
  entity: string,
  conditions: readonly ExistsLookupCondition[],
) => Promise<boolean>;

/** What a rule is evaluated against. */
export interface EvaluateInput {
  readonly auth: PolicyAuth;
  /** The row (reads), the new row (inserts) or the merged row (updates); missing fields read as null. */
  readonly data?: PolicyRow;
  /** The stored row, for updates and deletes. */
  readonly existing?: PolicyRow;
  /** The room a join rule is evaluated for (`name`, `key`); entity rules never read it. */
  readonly room?: PolicyRow;
  /** Answers `exists(...)`; without it a rule that reaches one throws `EXISTS_UNRESOLVED`. */
  readonly lookup?: ExistsLookup;
}

/** A rule's outcome and the smallest sub-condition that settled it. */
export interface RuleOutcome {
  readonly value: boolean;
  readonly decidedBy: Condition;
}

/** The values a rule can read. */
export interface Scope {
  readonly auth: PolicyAuth;
  readonly data: PolicyRow | undefined;
  readonly existing: PolicyRow | undefined;
  readonly room?: PolicyRow | undefined;
}

/** A question the walk cannot answer alone; the driver sends back the answer. */
interface ExistsRequest {
  readonly entity: string;
  readonly conditions: readonly ExistsLookupCondition[];
}

type Walk = Generator<ExistsRequest, RuleOutcome, boolean>;

/** The value of an operand in a scope. */
export function operandValue(operand: Operand, scope: Scope): PolicyValue {
  switch (operand.kind) {
    case "literal":
      return operand.value;
    case "auth":
      return readAuth(scope.auth, operand.name);
    case "role":
      return hasRole(scope.auth, operand.role);
    case "entitlement":
      return hasEntitlement(scope.auth, operand.entitlement);
    case "field":
      return readField(scope[operand.scope], operand.field);
  }
}

/** True for the literal `null`, which `==` treats as a null test. */
export const isNullLiteral = (operand: Operand): boolean =>
  operand.kind === "literal" && operand.value === null;

function compare(condition: Condition & { kind: "compare" }, scope: Scope): boolean {
  const side = (operand: Operand): ResolvedSide => ({
    value: operandValue(operand, scope),
    nullLiteral: isNullLiteral(operand),
  });
  return compareResolved(condition.op, side(condition.left), side(condition.right), condition.as);
}

function* walk(condition: Condition, scope: Scope): Walk {
  switch (condition.kind) {
    case "compare":
      return { value: compare(condition, scope), decidedBy: condition };
    case "truthy":
      // A null bool counts as false where a condition is expected.
      return { value: operandValue(condition.operand, scope) === true, decidedBy: condition };
    case "not": {
      const inner = yield* walk(condition.item, scope);
      // `!leaf` reads better than `leaf` as the reason; deeper, the inner reason stands.
      const decidedBy = inner.decidedBy === condition.item ? condition : inner.decidedBy;
      return { value: !inner.value, decidedBy };
    }
    case "and":
    case "or": {
      const stopOn = condition.kind === "or";
      for (const item of condition.items) {
        const outcome = yield* walk(item, scope);
        if (outcome.value === stopOn) return outcome;
      }
      return { value: !stopOn, decidedBy: condition };
    }
    case "exists": {
      const conditions: ExistsLookupCondition[] = [];
      for (const { field, value } of condition.conditions) {
        const resolved = operandValue(value, scope);
        // Equality with a null value (other than the literal null) matches no row.
        if (resolved === null && !isNullLiteral(value))
          return { value: false, decidedBy: condition };
        if (resolved === null && !field.nullable) return { value: false, decidedBy: condition };
        conditions.push({ field: field.name, type: field.type, value: resolved });
      }
      const found = yield { entity: condition.entity, conditions };
      return { value: found, decidedBy: condition };
    }
  }
}

function scopeOf(input: {
  auth: PolicyAuth;
  data?: PolicyRow;
  existing?: PolicyRow;
  room?: PolicyRow;
}): Scope {
  return { auth: input.auth, data: input.data, existing: input.existing, room: input.room };
}

/** Runs a walk to the end, answering `exists` questions synchronously. */
function drive(walker: Walk, lookup: ExistsLookup | undefined): RuleOutcome {
  let step = walker.next();
  while (!step.done) {
    if (lookup === undefined) throw new PolicyError("EXISTS_UNRESOLVED");
    step = walker.next(lookup(step.value.entity, step.value.conditions) === true);
  }
  return step.value;
}

/** Runs a walk to the end, awaiting each `exists` question in turn. */
async function driveAsync(walker: Walk, resolve: ExistsResolver): Promise<RuleOutcome> {
  let step = walker.next();
  while (!step.done) {
    const found = await resolve(step.value.entity, step.value.conditions);
    step = walker.next(found === true);
  }
  return step.value;
}

/**
 * Evaluates one rule and reports which sub-condition settled it (for
 * `explain`). `&&` and `||` short-circuit left to right, so `exists` lookups
 * run only when they matter.
 */
export function evaluateRule(
  rule: Pick<CompiledRule, "condition">,
  input: EvaluateInput,
): RuleOutcome {
  return drive(walk(rule.condition, scopeOf(input)), input.lookup);
}

/**
 * The reference semantics of a rule: true when it allows the access. Pure;
 * `exists(...)` is answered by `input.lookup`.
 *
 * @example
 * const [rule] = compiled.rules.get("Todo")?.read ?? [];
 * if (rule) evaluate(rule, { auth, data: { ownerId: "u1" } }); // true when auth.userId is "u1"
 */
export function evaluate(rule: Pick<CompiledRule, "condition">, input: EvaluateInput): boolean {
  return evaluateRule(rule, input).value;
}

/** Like `evaluateRule`, but `exists` questions go to an asynchronous resolver. */
export function evaluateRuleAsync(
  rule: Pick<CompiledRule, "condition">,
  input: Omit<EvaluateInput, "lookup">,
  resolve: ExistsResolver,
): Promise<RuleOutcome> {
  return driveAsync(walk(rule.condition, scopeOf(input)), resolve);
}
