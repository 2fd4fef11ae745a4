import { isValidId } from "./ids.js";
import type { FieldDef } from "./manifest.js";

/** Why a value does not fit its field. `reason` completes the sentence "Field x …". */
export interface ValueIssue {
  readonly field: string;
  readonly reason: string;
}

/** The outcome of checking a value: the normalized value, or the problem. */
export type ValueCheck =
  | { readonly ok: true; readonly value: unknown }
  | { readonly ok: false; readonly issue: ValueIssue };

// Years are four digits; seconds and the fraction are optional; the zone is
// required. Calendar ranges are checked separately (Date would roll Feb 30
// over to Mar 1).
const DATETIME =
  /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-]\d{2}:\d{2})$/;
const MAX_JSON_DEPTH = 64;
// A lone UTF-16 surrogate cannot be stored as UTF-8 text on either dialect.
const LONE_SURROGATE = /\p{Cs}/u;

function daysInMonth(year: number, month: number): number {
  if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}

/**
 * Normalizes an ISO 8601 date-time with a zone (`Z` or `±hh:mm`) to the UTC
 * form `new Date(x).toISOString()` gives (millisecond precision). Returns
 * null for anything else: no zone, an impossible date, or a UTC year
 * outside 0001..9999.
 *
 * @example
 * normalizeDatetime("2024-05-01T12:00:00+02:00"); // "2024-05-01T10:00:00.000Z"
 */
export function normalizeDatetime(value: string): string | null {
  const match = DATETIME.exec(value);
  if (match === null) return null;
  const [, y, mo, d, h, mi, s = "00", fraction = "", zone = "Z"] = match;
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return null;
  if (Number(h) > 23 || Number(mi) > 59 || Number(s) > 59) return null;
  if (zone !== "Z" && (Number(zone.slice(1, 3)) > 23 || Number(zone.slice(4, 6)) > 59)) return null;
  // Rebuild in the exact ECMAScript date-time format, which Date must parse.
  const millis = fraction.padEnd(3, "0").slice(0, 3);
  const time = new Date(`${y}-${mo}-${d}T${h}:${mi}:${s}.${millis}${zone}`);
  if (Number.isNaN(time.getTime())) return null;
  const iso = time.toISOString();
  // Zone shifts can leave 0001..9999 (toISOString then writes "+010000" or "0000").
  return iso.length === 24 && !iso.startsWith("0000") ? iso : null;
}

function textProblem(value: string): string | null {
  if (value.includes("\u0000")) return "must not contain NUL characters";
  if (LONE_SURROGATE.test(value)) return "must be valid Unicode text";
  return null;
}

// Postgres jsonb orders object keys by UTF-8 length, then bytewise; SQLite keeps
// the text as written. Normalizing to jsonb's order makes both return the same JSON.
function utf8Length(key: string): number {
  let length = 0;
  for (const char of key) {
    const code = char.codePointAt(0) ?? 0;
    length += code < 0x80 ? 1 : code < 0x800 ? 2 : code < 0x10000 ? 3 : 4;
  }
  return length;
}

function compareKeys(a: string, b: string): number {
  const byLength = utf8Length(a) - utf8Length(b);
  if (byLength !== 0) return byLength;
  // Code point order equals UTF-8 byte order; plain `<` compares UTF-16 units.
  const left = [...a];
  const right = [...b];
  for (let i = 0; i < left.length; i++) {
    const diff = (left[i]?.codePointAt(0) ?? 0) - (right[i]?.codePointAt(0) ?? 0);
    if (diff !== 0) return diff;
  }
  return 0;
}

/** A copy of a JSON value with canonical key order, or a reason it is not JSON. */
function normalizeJson(value: unknown, depth: number): { value: unknown } | { reason: string } {
  if (depth > MAX_JSON_DEPTH)
    return { reason: `must not nest deeper than ${MAX_JSON_DEPTH} levels` };
  if (value === null || typeof value === "boolean") return { value };
  if (typeof value === "number") {
    return Number.isFinite(value)
      ? { value: value === 0 ? 0 : value }
      : { reason: "must hold only finite numbers" };
  }
  if (typeof value === "string") {
    const problem = textProblem(value);
    return problem === null ? { value } : { reason: problem };
  }
  if (Array.isArray(value)) {
    const out: unknown[] = [];
    for (let i = 0; i < value.length; i++) {
      const item = normalizeJson(value[i], depth + 1);
      if ("reason" in item) return item;
      out.push(item.value);
    }
    return { value: out };
  }
  if (typeof value === "object") {
    const proto = Object.getPrototypeOf(value);
    if (proto !== Object.prototype && proto !== null) return { reason: "must be a JSON value" };
    const source = value as Record<string, unknown>;
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(source).sort(compareKeys)) {
      if (textProblem(key) !== null) {
        return { reason: "must not have object keys with NUL characters or invalid Unicode" };
      }
      const item = normalizeJson(source[key], depth + 1);
      if ("reason" in item) return item;
      out[key] = item.value;
    }
    return { value: out };
  }
  return { reason: "must be a JSON value" };
}

function fail(field: FieldDef, reason: string): ValueCheck {
  return { ok: false, issue: { field: field.name, reason } };
}

/**
 * Checks one incoming value against its field and returns it normalized:
 * datetimes as UTC ISO strings, json as a copy with canonical key order,
 * `-0` as `0`. `null` is accepted only for optional fields. Problems come
 * back as data (the field name and a reason), never as an exception.
 *
 * @example
 * checkFieldValue({ name: "n", type: "int", optional: false, unique: false }, 1.5);
 * // { ok: false, issue: { field: "n", reason: "must be an integer" } }
 */
export function checkFieldValue(field: FieldDef, value: unknown): ValueCheck {
  if (value === null || value === undefined) {
    return field.optional && value === null
      ? { ok: true, value: null }
      : fail(field, "is required");
  }
  switch (field.type) {
    case "string": {
      if (typeof value !== "string") return fail(field, "must be a string");
      const problem = textProblem(value);
      return problem === null ? { ok: true, value } : fail(field, problem);
    }
    case "int":
      if (typeof value !== "number" || !Number.isInteger(value))
        return fail(field, "must be an integer");
      if (!Number.isSafeInteger(value))
        return fail(field, "must be a safe integer (at most 2^53 - 1 in size)");
      return { ok: true, value: value === 0 ? 0 : value };
    case "float":
      if (typeof value !== "number" || !Number.isFinite(value))
        return fail(field, "must be a finite number");
      return { ok: true, value: value === 0 ? 0 : value };
    case "bool":
      return typeof value === "boolean"
        ? { ok: true, value }
        : fail(field, "must be true or false");
    case "datetime": {
      const normalized = typeof value === "string" ? normalizeDatetime(value) : null;
      return normalized === null
        ? fail(
            field,
            "must be an ISO 8601 date-time with a time zone, such as 2024-05-01T12:00:00Z",
          )
        : { ok: true, value: normalized };
    }
    case "json": {
      const result = normalizeJson(value, 0);
      return "reason" in result ? fail(field, result.reason) : { ok: true, value: result.value };
    }
    case "id":
      return isValidId(value)
        ? { ok: true, value }
        : fail(field, "must be a record id (40 lowercase hexadecimal characters)");
    case "file":
      return isValidId(value)
        ? { ok: true, value }
        : fail(field, "must be a file id (40 lowercase hexadecimal characters)");
    case "enum":
      return typeof value === "string" && field.values.includes(value)
        ? { ok: true, value }
        : fail(field, `must be one of ${field.values.join(", ")}`);
  }
}
