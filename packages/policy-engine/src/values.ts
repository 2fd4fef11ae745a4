import { type FieldKind, normalizeDatetime } from "@svc/schema";
import type { CompareKind, FieldInfo, PolicyAuth, PolicyRow } from "./condition.js";

/** A value a policy compares: what a literal, `auth` member or non-json field holds. */
export type PolicyValue = string | number | boolean | null;

const LONE_SURROGATE = /\p{Cs}/u;

/** True for text neither dialect can store: a NUL character or a lone UTF-16 surrogate. */
export function isUnstorableText(text: string): boolean {
  return text.includes("\u0000") || LONE_SURROGATE.test(text);
}

/**
 * Reads a field of a row the way storage would hand it back: a missing key
 * is null, a date-time is normalized to UTC ISO text, a bool given as 0/1
 * (SQLite's encoding) is a boolean.
 */
export function readField(row: PolicyRow | undefined, field: FieldInfo): PolicyValue {
  const value = row?.[field.name];
  if (value === undefined || value === null) return null;
  if (field.type === "bool" && (value === 0 || value === 1)) return value === 1;
  if (field.type === "datetime") {
    if (value instanceof Date) return Number.isNaN(value.getTime()) ? null : value.toISOString();
    if (typeof value === "string") return normalizeDatetime(value) ?? value;
  }
  if (typeof value === "string" || typeof value === "number" || typeof value === "boolean") {
    return value;
  }
  // Not a value this field can hold: it equals nothing and orders against nothing.
  return null;
}

/**
 * The value of an `auth` member. `userId` and `tenantId` are null unless they
 * are strings a database could store.
 */
export function readAuth(
  auth: PolicyAuth,
  name: "userId" | "tenantId" | "isAdmin" | "isGuest",
): PolicyValue {
  if (name === "isAdmin" || name === "isGuest") return auth[name] === true;
  const value = auth[name];
  return typeof value === "string" && !isUnstorableText(value) ? value : null;
}

/** True when the caller holds the role. */
export function hasRole(auth: PolicyAuth, role: string): boolean {
  return Array.isArray(auth.roles) && auth.roles.includes(role);
}

/** True when the caller holds the billing entitlement (a price or product id). */
export function hasEntitlement(auth: PolicyAuth, entitlement: string): boolean {
  return Array.isArray(auth.entitlements) && auth.entitlements.includes(entitlement);
}

// UTF-16 code units reordered so that comparing them gives code point order,
// which is UTF-8 byte order: what SQLite's BINARY and Postgres' "C" collation use.
function unitRank(unit: number): number {
  if (unit >= 0xe000) return unit - 0x800;
  if (unit >= 0xd800) return unit + 0x2000;
  return unit;
}

/** Compares strings by code point (UTF-8 byte order), not by UTF-16 unit. */
export function compareText(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y) return unitRank(x) - unitRank(y);
  }
  return a.length - b.length;
}

/**
 * Orders two non-null values compared as `kind`: negative, zero or positive,
 * or NaN when they are not both of the kind's JavaScript type.
 */
export function compareValues(a: PolicyValue, b: PolicyValue, kind: CompareKind): number {
  switch (kind) {
    case "number":
      return typeof a === "number" && typeof b === "number" ? Math.sign(a - b) : Number.NaN;
    case "bool":
      return typeof a === "boolean" && typeof b === "boolean" ? Number(a) - Number(b) : Number.NaN;
    case "text":
    case "datetime":
      // Normalized date-times are fixed-width ASCII, so text order is time order.
      return typeof a === "string" && typeof b === "string"
        ? Math.sign(compareText(a, b))
        : Number.NaN;
  }
}

/** Two-valued equality: true iff both values are non-null and equal. */
export function valuesEqual(
  a: PolicyValue,
  b: PolicyValue,
  kind: CompareKind | undefined,
): boolean {
  if (a === null || b === null || kind === undefined) return false;
  return compareValues(a, b, kind) === 0;
}

/** One side of a comparison, resolved: its value and whether it was written as the literal `null`. */
export interface ResolvedSide {
  readonly value: PolicyValue;
  readonly nullLiteral: boolean;
}

/**
 * The comparison semantics shared by the evaluator and SQL constant folding:
 * `x == null` (the literal) tests for null; otherwise `==` is true iff both
 * sides are non-null and equal, `!=` is its negation, and an ordering with a
 * null side is false.
 */
export function compareResolved(
  op: "==" | "!=" | "<" | "<=" | ">" | ">=",
  left: ResolvedSide,
  right: ResolvedSide,
  kind: CompareKind | undefined,
): boolean {
  if (op === "==" || op === "!=") {
    const equal =
      left.nullLiteral || right.nullLiteral
        ? left.value === null && right.value === null
        : valuesEqual(left.value, right.value, kind);
    return op === "==" ? equal : !equal;
  }
  if (left.value === null || right.value === null || kind === undefined) return false;
  const order = compareValues(left.value, right.value, kind);
  if (Number.isNaN(order)) return false;
  if (op === "<") return order < 0;
  if (op === "<=") return order <= 0;
  if (op === ">") return order > 0;
  return order >= 0;
}

/** How values of a field kind compare; undefined for json, which never compares. */
export function compareKindOf(type: FieldKind): CompareKind | undefined {
  switch (type) {
    case "int":
    case "float":
      return "number";
    case "bool":
    case "datetime":
      return type;
    case "json":
      return undefined;
    default:
      return "text";
  }
}
