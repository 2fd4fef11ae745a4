import type { EntityDef, FieldDef } from "@svc/schema";

/**
 * The TypeScript type of a field's value in a row as the REST API answers it
 * (the same mapping `InferRow` makes for the DSL): numbers for `int` and
 * `float`, ISO 8601 strings for `datetime`, the literal union for `enum`,
 * `unknown` for `json`. The store answers a missing optional field as
 * `null`, so an optional field gains `| null` (the key is always present).
 *
 * @example
 * fieldType({ name: "listId", type: "id", target: "List", optional: true, unique: false });
 * // "string | null"
 */
export function fieldType(field: FieldDef): string {
  const base = baseType(field);
  // `unknown` already holds null.
  return field.optional && base !== "unknown" ? `${base} | null` : base;
}

function baseType(field: FieldDef): string {
  switch (field.type) {
    case "string":
    case "datetime":
    case "id":
    case "file":
      return "string";
    case "int":
    case "float":
      return "number";
    case "bool":
      return "boolean";
    case "json":
      return "unknown";
    case "enum":
      return field.values.map((value) => JSON.stringify(value)).join(" | ");
  }
}

/**
 * An entity's fields as a TypeScript object type, one `name: type;` line per
 * field in manifest order, indented by `indent`. `id` is left out: the
 * client adds it to every row.
 */
export function entityFieldsType(entity: EntityDef, indent: string): string {
  if (entity.fields.length === 0) return "{}";
  const lines = entity.fields.map((field) => `${indent}  ${field.name}: ${fieldType(field)};`);
  return `{\n${lines.join("\n")}\n${indent}}`;
}
