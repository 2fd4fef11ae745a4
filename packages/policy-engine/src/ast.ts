/**
 * The syntax tree of a policy expression. Every node carries `start` and
 * `end`, 0-based offsets into the source (`end` exclusive); messages print
 * 1-based columns. Parentheses leave no node of their own.
 */

/** A comparison operator. */
export type CompareOp = "==" | "!=" | "<" | "<=" | ">" | ">=";

/** Where a node sits in the source: 0-based offsets, `end` exclusive. */
export interface Span {
  readonly start: number;
  readonly end: number;
}

/** `true`, `false`, `null`, a number or a string. */
export interface LiteralExpr extends Span {
  readonly kind: "literal";
  readonly value: string | number | boolean | null;
}

/**
 * `auth.<name>`, `data.<name>`, `existing.<name>` or (in a room's join
 * rule) `room.<name>`; the name is checked later.
 */
export interface RefExpr extends Span {
  readonly kind: "ref";
  readonly scope: "auth" | "data" | "existing" | "room";
  readonly name: string;
}

/** `auth.hasRole('<role>')`. */
export interface HasRoleExpr extends Span {
  readonly kind: "hasRole";
  readonly role: string;
}

/** `auth.hasEntitlement('<id>')`: a billing price or product id. */
export interface HasEntitlementExpr extends Span {
  readonly kind: "hasEntitlement";
  readonly entitlement: string;
}

/** `left <op> right`. Comparisons do not chain. */
export interface CompareExpr extends Span {
  readonly kind: "compare";
  readonly op: CompareOp;
  /** Where the operator starts. */
  readonly opStart: number;
  readonly left: Expr;
  readonly right: Expr;
}

/** `a && b && ...` or `a || b || ...`, flattened: at least two operands. */
export interface LogicalExpr extends Span {
  readonly kind: "and" | "or";
  readonly operands: readonly Expr[];
}

/** `!operand`. */
export interface NotExpr extends Span {
  readonly kind: "not";
  readonly operand: Expr;
}

/** One `<field> == <value>` of an `exists(...)`. */
export interface ExistsCondition extends Span {
  /** A field (or `id`) of the entity named in the `exists`. */
  readonly field: string;
  /** A literal, `auth.*`, `auth.hasRole(...)`, `auth.hasEntitlement(...)`, `data.*` or `existing.*`. */
  readonly value: Expr;
}

/** `exists(<Entity> where <field> == <value> && ...)`. */
export interface ExistsExpr extends Span {
  readonly kind: "exists";
  readonly entity: string;
  readonly entityStart: number;
  readonly conditions: readonly ExistsCondition[];
}

/** Any policy expression node. */
export type Expr =
  | LiteralExpr
  | RefExpr
  | HasRoleExpr
  | HasEntitlementExpr
  | CompareExpr
  | LogicalExpr
  | NotExpr
  | ExistsExpr;
