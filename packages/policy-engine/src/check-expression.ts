import { type EntityDef, type Manifest, nearest, normalizeDatetime } from "@svc/schema";
import type { CompareExpr, ExistsExpr, Expr, Span } from "./ast.js";
import type {
  CheckedExistsCondition,
  CompareKind,
  Condition,
  FieldInfo,
  Operand,
} from "./condition.js";
import { type PolicyAction, type PolicyIssue, ruleKey } from "./errors.js";

const AUTH_MEMBERS = ["userId", "tenantId", "isAdmin", "isGuest"] as const;
type AuthMember = (typeof AUTH_MEMBERS)[number];

/** What a rule is checked against: an entity's rule for one action, or a room kind's join rule. */
export type CheckTarget =
  | {
      readonly manifest: Manifest;
      readonly entity: EntityDef;
      readonly action: PolicyAction;
    }
  | { readonly manifest: Manifest; readonly room: string };

/** What a join rule reads of its room: the kind, and the key (null in a room without one). */
const ROOM_FIELDS: Readonly<Record<string, FieldInfo>> = {
  name: { entity: "room", name: "name", type: "string", nullable: false },
  key: { entity: "room", name: "key", type: "string", nullable: true },
};

/** The type of an operand, as far as comparisons care. */
type OperandType = CompareKind | "json" | "null";

function isAuthMember(name: string): name is AuthMember {
  return (AUTH_MEMBERS as readonly string[]).includes(name);
}

/** Describes a field of an entity, including the implicit `id`. */
export function fieldInfo(entity: EntityDef, name: string): FieldInfo | undefined {
  if (name === "id") return { entity: entity.name, name: "id", type: "id", nullable: false };
  const field = entity.fields.find((f) => f.name === name);
  if (field === undefined) return undefined;
  const info = { entity: entity.name, name, type: field.type, nullable: field.optional };
  return field.type === "enum" ? { ...info, values: field.values } : info;
}

function operandType(operand: Operand): OperandType {
  switch (operand.kind) {
    case "literal":
      if (operand.value === null) return "null";
      return typeof operand.value === "string"
        ? "text"
        : typeof operand.value === "number"
          ? "number"
          : "bool";
    case "auth":
      return operand.name === "userId" || operand.name === "tenantId" ? "text" : "bool";
    case "role":
    case "entitlement":
      return "bool";
    case "field":
      switch (operand.field.type) {
        case "int":
        case "float":
          return "number";
        case "bool":
        case "datetime":
        case "json":
          return operand.field.type;
        default:
          return "text";
      }
  }
}

function describeOperand(operand: Operand): string {
  switch (operand.kind) {
    case "literal":
      return operand.value === null
        ? "null"
        : `${typeof operand.value} ${JSON.stringify(operand.value)}`;
    case "auth":
      return `auth.${operand.name}`;
    case "role":
      return `auth.hasRole(${JSON.stringify(operand.role)})`;
    case "entitlement":
      return `auth.hasEntitlement(${JSON.stringify(operand.entitlement)})`;
    case "field":
      return `${operand.field.type} ${operand.scope}.${operand.field.name}`;
  }
}

/** What `auth.` offers a rule, for suggestions. */
const AUTH_NAMES = ["userId", "tenantId", "isAdmin", "isGuest", "hasRole", "hasEntitlement"];

/** ` (did you mean data.title?)` for a misspelt field, else nothing. */
function suggestField(entity: EntityDef, name: string, prefix: string): string {
  const suggestion = nearest(name, ["id", ...entity.fields.map((field) => field.name)]);
  return suggestion === undefined ? "" : ` (did you mean ${prefix}.${suggestion}?)`;
}

/** Checks one parsed rule; problems go to `issues`, and the result is null if there were any. */
export class RuleChecker {
  readonly issues: PolicyIssue[] = [];

  constructor(private readonly target: CheckTarget) {}

  private fail(message: string, offset: number): null {
    const column = offset + 1;
    this.issues.push({ code: "POLICY_TYPE_ERROR", message: `${message} at ${column}`, column });
    return null;
  }

  /** Checks `expr` in a position that needs a condition (the top level, `&&`, `||`, `!`). */
  condition(expr: Expr): Condition | null {
    switch (expr.kind) {
      case "and":
      case "or": {
        const items = expr.operands.map((operand) => this.condition(operand));
        const ok = items.filter((item): item is Condition => item !== null);
        return ok.length === items.length ? { kind: expr.kind, items: ok, expr } : null;
      }
      case "not": {
        const item = this.condition(expr.operand);
        return item === null ? null : { kind: "not", item, expr };
      }
      case "compare":
        return this.compare(expr);
      case "exists":
        return this.exists(expr);
      default: {
        const operand = this.operand(expr);
        if (operand === null) return null;
        const type = operandType(operand);
        if (type !== "bool") {
          const found = operand.kind === "literal" && operand.value === null;
          return this.fail(
            `expected a condition, got ${found ? "null" : describeOperand(operand)}`,
            expr.start,
          );
        }
        return { kind: "truthy", operand, expr };
      }
    }
  }

  /** Checks `expr` in a value position (a side of a comparison or of an exists condition). */
  private operand(expr: Expr): Operand | null {
    const span: Span = { start: expr.start, end: expr.end };
    switch (expr.kind) {
      case "literal":
        return { kind: "literal", value: expr.value, span };
      case "hasRole":
        return { kind: "role", role: expr.role, span };
      case "hasEntitlement":
        return { kind: "entitlement", entitlement: expr.entitlement, span };
      case "ref":
        if (expr.scope === "auth") {
          if (isAuthMember(expr.name)) return { kind: "auth", name: expr.name, span };
          if (expr.name === "hasRole") {
            return this.fail("auth.hasRole needs a role, as in auth.hasRole('admin')", expr.start);
          }
          if (expr.name === "hasEntitlement") {
            return this.fail(
              "auth.hasEntitlement needs an entitlement id, as in auth.hasEntitlement('price_pro')",
              expr.start,
            );
          }
          const suggestion = nearest(expr.name, AUTH_NAMES);
          return this.fail(
            suggestion === undefined
              ? `unknown auth.${expr.name} (auth has userId, tenantId, isAdmin, isGuest, hasRole('role') and hasEntitlement('id'))`
              : `unknown auth.${expr.name} (did you mean auth.${suggestion}${suggestion.startsWith("has") ? `('${suggestion === "hasRole" ? "role" : "id"}')` : ""}?)`,
            expr.start,
          );
        }
        return this.fieldRef(expr.scope, expr.name, span);
      default:
        return this.fail(
          "cannot compare a condition (combine conditions with &&, || and !)",
          expr.start,
        );
    }
  }

  private fieldRef(scope: "data" | "existing" | "room", name: string, span: Span): Operand | null {
    if ("room" in this.target) {
      if (scope !== "room") {
        return this.fail(
          `${scope} is not available in a join rule (use auth.*, room.name and room.key)`,
          span.start,
        );
      }
      const field = Object.hasOwn(ROOM_FIELDS, name) ? ROOM_FIELDS[name] : undefined;
      if (field === undefined) {
        return this.fail(`unknown room.${name} (room has name and key)`, span.start);
      }
      return { kind: "field", scope, field, span };
    }
    const { action, entity } = this.target;
    if (scope === "room") {
      return this.fail("room is available only in a room's join rule", span.start);
    }
    const key = ruleKey(action);
    if (scope === "existing" && (action === "read" || action === "insert")) {
      return this.fail(`existing is not available in ${key} (use data)`, span.start);
    }
    if (scope === "data" && action === "delete") {
      return this.fail(`data is not available in ${key} (use existing)`, span.start);
    }
    const field = fieldInfo(entity, name);
    if (field === undefined) {
      return this.fail(
        `unknown field ${scope}.${name}${suggestField(entity, name, scope)}`,
        span.start,
      );
    }
    return { kind: "field", scope, field, span };
  }

  private compare(expr: CompareExpr): Condition | null {
    const left = this.operand(expr.left);
    const right = this.operand(expr.right);
    if (left === null || right === null) return null;
    const checked = this.compatible(left, right, expr.op, expr.opStart);
    if (checked === null) return null;
    return {
      kind: "compare",
      op: expr.op,
      left: checked[0],
      right: checked[1],
      as: checked[2],
      expr,
    };
  }

  /**
   * Whether two operands can be compared with `op`. Returns the operands
   * (date-time literals normalized) and how they compare.
   */
  private compatible(
    left: Operand,
    right: Operand,
    op: string,
    offset: number,
    leftLabel?: string,
  ): [Operand, Operand, CompareKind | undefined] | null {
    const describe = (operand: Operand): string =>
      operand === left && leftLabel !== undefined ? leftLabel : describeOperand(operand);
    const lt = operandType(left);
    const rt = operandType(right);
    if (lt === "json" || rt === "json") {
      const json = lt === "json" ? left : right;
      return this.fail(`${describe(json)} is a json field and cannot be compared`, offset);
    }
    const ordering = op !== "==" && op !== "!=";
    if (lt === "null" || rt === "null") {
      if (ordering) return this.fail(`cannot order null with ${op}`, offset);
      const other = lt === "null" ? rt : lt;
      return [left, right, other === "null" ? undefined : other];
    }
    let l = left;
    let r = right;
    let kind: CompareKind | undefined;
    if (lt === rt) kind = lt;
    else if (lt === "datetime" && rt === "text") {
      const fixed = this.datetimeLiteral(right, offset);
      if (fixed === null) return null;
      [r, kind] = [fixed, "datetime"];
    } else if (lt === "text" && rt === "datetime") {
      const fixed = this.datetimeLiteral(left, offset);
      if (fixed === null) return null;
      [l, kind] = [fixed, "datetime"];
    }
    if (kind === undefined) {
      return this.fail(`cannot compare ${describe(left)} with ${describe(right)}`, offset);
    }
    if (ordering) {
      if (kind === "bool") return this.fail(`cannot order bool values with ${op}`, offset);
      for (const operand of [l, r]) {
        if (operand.kind === "field" && operand.field.type === "enum") {
          return this.fail(`cannot order ${describe(operand)} with ${op}`, offset);
        }
      }
    }
    for (const [a, b] of [
      [l, r],
      [r, l],
    ] as const) {
      if (a.kind === "field" && a.field.values !== undefined && b.kind === "literal") {
        if (typeof b.value === "string" && !a.field.values.includes(b.value)) {
          return this.fail(
            `${JSON.stringify(b.value)} is not a value of ${a.field.entity}.${a.field.name} (${a.field.values.join(", ")})`,
            b.span.start,
          );
        }
      }
    }
    return [l, r, kind];
  }

  /** A string literal compared with a date-time must be one; it is normalized to UTC. */
  private datetimeLiteral(operand: Operand, offset: number): Operand | null {
    if (operand.kind !== "literal" || typeof operand.value !== "string") {
      return this.fail(`cannot compare a datetime with ${describeOperand(operand)}`, offset);
    }
    const normalized = normalizeDatetime(operand.value);
    if (normalized === null) {
      return this.fail(
        `${JSON.stringify(operand.value)} is not an ISO 8601 date-time with a zone, such as "2024-05-01T12:00:00Z"`,
        operand.span.start,
      );
    }
    return { ...operand, value: normalized };
  }

  private exists(expr: ExistsExpr): Condition | null {
    const entity = this.target.manifest.entities.find((e) => e.name === expr.entity);
    if (entity === undefined) {
      const suggestion = nearest(
        expr.entity,
        this.target.manifest.entities.map((candidate) => candidate.name),
      );
      const hint = suggestion === undefined ? "" : ` (did you mean ${suggestion}?)`;
      return this.fail(`unknown entity ${expr.entity} in exists${hint}`, expr.entityStart);
    }
    const conditions: CheckedExistsCondition[] = [];
    let ok = true;
    for (const condition of expr.conditions) {
      const field = fieldInfo(entity, condition.field);
      const value = this.operand(condition.value);
      if (field === undefined) {
        this.fail(
          `unknown field ${entity.name}.${condition.field}${suggestField(entity, condition.field, entity.name)}`,
          condition.start,
        );
        ok = false;
        continue;
      }
      if (value === null) {
        ok = false;
        continue;
      }
      const own: Operand = {
        kind: "field",
        scope: "data",
        field,
        span: { start: condition.start, end: condition.start + condition.field.length },
      };
      const label = `${field.type} ${entity.name}.${field.name}`;
      const checked = this.compatible(own, value, "==", condition.start, label);
      if (checked === null) ok = false;
      else conditions.push({ field, value: checked[1] });
    }
    return ok ? { kind: "exists", entity: entity.name, conditions, expr } : null;
  }
}
