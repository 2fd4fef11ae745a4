import type { Expr } from "./ast.js";

// Binding strength, low to high; a child weaker than its slot gets parentheses.
const PRECEDENCE: Readonly<Record<Expr["kind"], number>> = {
  or: 1,
  and: 2,
  not: 3,
  compare: 4,
  literal: 5,
  ref: 5,
  hasRole: 5,
  hasEntitlement: 5,
  exists: 5,
};

function formatLiteral(value: string | number | boolean | null): string {
  return typeof value === "string" ? JSON.stringify(value) : String(value);
}

function wrap(expr: Expr, parens: boolean): string {
  const text = formatPolicyExpression(expr);
  return parens ? `(${text})` : text;
}

/**
 * Prints a syntax tree back as canonical source: single spaces around
 * operators, double-quoted strings, and parentheses only where the tree
 * needs them (plus around a comparison under `!`, for the reader). Parsing
 * the output gives the same tree, positions aside.
 *
 * @example
 * formatPolicyExpression(parsePolicyExpression("(auth.userId==data.ownerId)||auth.isAdmin"));
 * // "auth.userId == data.ownerId || auth.isAdmin"
 */
export function formatPolicyExpression(expr: Expr): string {
  switch (expr.kind) {
    case "literal":
      return formatLiteral(expr.value);
    case "ref":
      return `${expr.scope}.${expr.name}`;
    case "hasRole":
      return `auth.hasRole(${JSON.stringify(expr.role)})`;
    case "hasEntitlement":
      return `auth.hasEntitlement(${JSON.stringify(expr.entitlement)})`;
    case "compare":
      return `${wrap(expr.left, PRECEDENCE[expr.left.kind] <= 4)} ${expr.op} ${wrap(expr.right, PRECEDENCE[expr.right.kind] <= 4)}`;
    case "not":
      return `!${wrap(expr.operand, PRECEDENCE[expr.operand.kind] < 5 && expr.operand.kind !== "not")}`;
    case "and":
    case "or": {
      const own = PRECEDENCE[expr.kind];
      const parts = expr.operands.map((operand) => wrap(operand, PRECEDENCE[operand.kind] <= own));
      return parts.join(expr.kind === "and" ? " && " : " || ");
    }
    case "exists": {
      const conditions = expr.conditions.map(
        (condition) => `${condition.field} == ${formatPolicyExpression(condition.value)}`,
      );
      return `exists(${expr.entity} where ${conditions.join(" && ")})`;
    }
  }
}
