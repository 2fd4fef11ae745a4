const INDENT = "  ";

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** `value` on one line, with a space inside braces and after commas. */
function inline(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(inline).join(", ")}]`;
  if (isPlainObject(value)) {
    const entries = Object.entries(value).filter(([, item]) => item !== undefined);
    if (entries.length === 0) return "{}";
    return `{ ${entries.map(([key, item]) => `${JSON.stringify(key)}: ${inline(item)}`).join(", ")} }`;
  }
  return JSON.stringify(value);
}

/** `value` starting at column `column` of a line indented by `indent`. */
function format(value: unknown, indent: string, column: number, width: number): string {
  const flat = inline(value);
  // +1 for the comma that may follow.
  if (column + flat.length + 1 <= width) return flat;
  const inner = indent + INDENT;
  if (Array.isArray(value)) {
    const items = value.map((item) => inner + format(item, inner, inner.length, width));
    return `[\n${items.join(",\n")}\n${indent}]`;
  }
  if (isPlainObject(value)) {
    const items = Object.entries(value)
      .filter(([, item]) => item !== undefined)
      .map(([key, item]) => {
        const prefix = `${inner}${JSON.stringify(key)}: `;
        return prefix + format(item, inner, prefix.length, width);
      });
    return `{\n${items.join(",\n")}\n${indent}}`;
  }
  return flat;
}

/**
 * JSON text for a generated file: two-space indentation, but an object or
 * array that fits within `width` columns stays on one line, as a person
 * would write a manifest. Ends with a newline.
 */
export function formatJSON(value: unknown, width = 100): string {
  return `${format(value, "", 0, width)}\n`;
}
