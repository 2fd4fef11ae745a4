import type { FieldDef } from "@svc/schema";
import type { Row } from "@svc/store";
import { StudioError } from "./studio-errors.js";

const NUMBER_TEXT = /^-?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

/** Whether the store fills the field when an insert leaves it out (owner, `defaultNow`). */
function filledByStore(field: FieldDef): boolean {
  return (
    (field.type === "string" && field.owner) || (field.type === "datetime" && field.defaultNow)
  );
}

/**
 * The value a form's text stands for, by field kind: numbers and booleans
 * parsed, json parsed, an empty box null for an optional field. Text that
 * does not fit the kind is passed on as it is, so the store's own
 * validation (typed `INVALID_FIELD` errors) judges it, as for the entity API.
 * Undefined means "leave the field out".
 */
export function valueFromText(field: FieldDef, text: string | undefined): unknown {
  if (text === undefined) return undefined;
  if (text === "") {
    if (field.optional) return null;
    if (filledByStore(field)) return undefined;
    return field.type === "string" ? "" : undefined;
  }
  switch (field.type) {
    case "int":
    case "float":
      return NUMBER_TEXT.test(text.trim()) ? Number(text.trim()) : text;
    case "bool":
      return text === "true" ? true : text === "false" ? false : text;
    case "json":
      try {
        return JSON.parse(text) as unknown;
      } catch {
        throw new StudioError("INVALID_JSON", `The value of ${field.name} is not valid JSON.`);
      }
    default:
      return text;
  }
}

/** The text a form box shows for a stored value. */
export function textFromValue(field: FieldDef, value: unknown): string {
  if (value === null || value === undefined) return "";
  if (field.type === "json") return JSON.stringify(value, null, 2);
  return String(value);
}

/** The form's fields of an entity as values for an insert (left-out and empty ones omitted). */
export function insertValues(
  fields: readonly FieldDef[],
  form: (name: string) => string | undefined,
): Record<string, unknown> {
  const data: Record<string, unknown> = {};
  for (const field of fields) {
    const value = valueFromText(field, form(field.name));
    if (value !== undefined) data[field.name] = value;
  }
  return data;
}

/**
 * The changed fields of a row: only values that differ from the stored
 * ones, so an unchanged owner field or a datetime shown back as it was is
 * never written.
 */
export function changedValues(
  fields: readonly FieldDef[],
  current: Row,
  form: (name: string) => string | undefined,
): Record<string, unknown> {
  const patch: Record<string, unknown> = {};
  for (const field of fields) {
    const value = valueFromText(field, form(field.name));
    if (value === undefined) continue;
    if (JSON.stringify(value) === JSON.stringify(current[field.name] ?? null)) continue;
    patch[field.name] = value;
  }
  return patch;
}
