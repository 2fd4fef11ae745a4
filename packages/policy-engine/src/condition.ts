import type { AuthContext, FieldKind, Manifest } from "@svc/schema";
import type { CompareExpr, CompareOp, ExistsExpr, Expr, Span } from "./ast.js";
import type { PolicyAction } from "./errors.js";

/**
 * Who is asking, as a policy sees it: the part of @svc/schema's
 * `AuthContext` a rule can read (`auth.userId` is null for an anonymous
 * caller). A full `AuthContext` fits as is.
 */
export type PolicyAuth = Pick<
  AuthContext,
  "userId" | "tenantId" | "roles" | "entitlements" | "isAdmin" | "isGuest"
>;

/** A row as policies see it: field name to value; a missing key reads as null. */
export type PolicyRow = Readonly<Record<string, unknown>>;

/** A field a checked rule reads, with what the SQL compiler and evaluator need to know. */
export interface FieldInfo {
  readonly entity: string;
  /** The field (and column) name; `id` for the record id. */
  readonly name: string;
  /** The field's kind; the record id has kind `id`. */
  readonly type: FieldKind;
  /** True for an optional field: it may hold null. */
  readonly nullable: boolean;
  /** An enum field's values. */
  readonly values?: readonly string[];
}

/** How two values are compared once checked: as text, numbers, booleans or date-times. */
export type CompareKind = "text" | "number" | "bool" | "datetime";

/**
 * A checked value: a literal, an `auth` member, a role or entitlement test or
 * a field of `data`/`existing` (or, in a room's join rule, of `room`).
 */
export type Operand =
  | {
      readonly kind: "literal";
      readonly value: string | number | boolean | null;
      readonly span: Span;
    }
  | {
      readonly kind: "auth";
      readonly name: "userId" | "tenantId" | "isAdmin" | "isGuest";
      readonly span: Span;
    }
  | { readonly kind: "role"; readonly role: string; readonly span: Span }
  | { readonly kind: "entitlement"; readonly entitlement: string; readonly span: Span }
  | {
      readonly kind: "field";
      readonly scope: "data" | "existing" | "room";
      readonly field: FieldInfo;
      readonly span: Span;
    };

/** One checked `<field> == <value>` of an `exists(...)`. */
export interface CheckedExistsCondition {
  readonly field: FieldInfo;
  readonly value: Operand;
}

/**
 * A type-checked rule: the form the evaluator and the SQL compiler walk.
 * Each node keeps the syntax node it came from (`expr`) for `explain`.
 */
export type Condition =
  | {
      readonly kind: "compare";
      readonly op: CompareOp;
      readonly left: Operand;
      readonly right: Operand;
      /** How the values compare; absent when both sides are the literal null. */
      readonly as: CompareKind | undefined;
      readonly expr: CompareExpr;
    }
  | { readonly kind: "truthy"; readonly operand: Operand; readonly expr: Expr }
  | { readonly kind: "and" | "or"; readonly items: readonly Condition[]; readonly expr: Expr }
  | { readonly kind: "not"; readonly item: Condition; readonly expr: Expr }
  | {
      readonly kind: "exists";
      readonly entity: string;
      readonly conditions: readonly CheckedExistsCondition[];
      readonly expr: ExistsExpr;
    };

/** One rule of one policy, parsed and checked against the manifest. */
export interface CompiledRule {
  /** The policy's name. */
  readonly policy: string;
  readonly entity: string;
  readonly action: PolicyAction;
  /** The rule as written. */
  readonly source: string;
  /** The syntax tree. */
  readonly expr: Expr;
  /** The checked form the evaluator and SQL compiler use. */
  readonly condition: Condition;
}

/** A room kind's join rule, parsed and checked; see `compilePolicies`. */
export interface CompiledJoinRule {
  /** The room kind (the manifest entry's `name`). */
  readonly room: string;
  /** The rule as written. */
  readonly source: string;
  /** The syntax tree. */
  readonly expr: Expr;
  /** The checked form the evaluator walks. */
  readonly condition: Condition;
}

/** Every rule of a manifest, by entity and action; see `compilePolicies`. */
export interface CompiledPolicies {
  readonly manifest: Manifest;
  /**
   * Entity name to its rules per action, in manifest order. An entity or
   * action with no rule is denied to everyone (the admin bypass is the
   * store's business).
   */
  readonly rules: ReadonlyMap<string, Readonly<Record<PolicyAction, readonly CompiledRule[]>>>;
  /** Room kind to its join rule (see the manifest's `rooms`); a kind not here cannot be joined. */
  readonly rooms: ReadonlyMap<string, CompiledJoinRule>;
}
