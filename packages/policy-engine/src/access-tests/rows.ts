import type { EntityDef, FieldDef } from "@svc/schema";
import type { PolicyRow } from "../condition.js";

/** The date-time a required date-time field gets when a row leaves it out. */
export const DEFAULT_DATETIME = "2000-01-01T00:00:00.000Z";

/** The value a required field gets when a test row leaves it out: rules rarely read it. */
export function defaultValue(field: FieldDef): unknown {
  if (field.optional) return null;
  switch (field.type) {
    case "int":
    case "float":
      return 0;
    case "bool":
      return false;
    case "datetime":
      return DEFAULT_DATETIME;
    case "json":
      return {};
    case "id":
      return "0".repeat(40);
    case "enum":
      return field.values?.[0] ?? "";
    default:
      return "";
  }
}

/** The row with every field of the entity present (defaults for the ones left out). */
export function completeRow(entity: EntityDef, row: PolicyRow): Record<string, unknown> {
  const out: Record<string, unknown> = { id: row.id };
  for (const field of entity.fields) {
    const value = row[field.name];
    out[field.name] = value === undefined ? defaultValue(field) : value;
  }
  return out;
}

function fnv1a(text: string, seed: number): number {
  let hash = (0x811c9dc5 ^ seed) >>> 0;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash >>> 0;
}

/**
 * A record id (40 lowercase hex characters) derived from a name, the same
 * on every run, so a report names the same ids each time.
 */
export function idForName(name: string): string {
  let out = "";
  for (let seed = 0; seed < 5; seed++) out += fnv1a(name, seed).toString(16).padStart(8, "0");
  return out;
}
