/** A markdown file split into its front matter fields and its body. */
export interface FrontMatterDocument {
  /** `key: value` pairs of the front matter; empty when the file has none. */
  attributes: Record<string, string>;
  /** The markdown after the front matter, with LF line ends. */
  body: string;
}

const FENCE = "---";
const KEY_LINE = /^([A-Za-z_][A-Za-z0-9_-]*)\s*:(.*)$/;
const BLOCK_INDICATOR = /^[>|][+-]?$/;

function unquote(raw: string, lineNumber: number): string {
  const value = raw.trim();
  if (value.length >= 2 && value.startsWith('"') && value.endsWith('"')) {
    try {
      const parsed: unknown = JSON.parse(value);
      if (typeof parsed === "string") return parsed;
    } catch {
      // reported below
    }
    throw new Error(`line ${lineNumber}: the double-quoted value is not a valid string`);
  }
  if (value.length >= 2 && value.startsWith("'") && value.endsWith("'")) {
    return value.slice(1, -1).replaceAll("''", "'");
  }
  return value;
}

/**
 * Splits a markdown file into front matter and body. The front matter is the
 * YAML subset the docs use: a first line `---`, then `key: value` lines
 * (values plain, 'single' or "double" quoted; indented lines continue the
 * previous value, folded with spaces, so `summary: >` blocks work; blank
 * lines and `#` comments are skipped), closed by `---`. A file that does not
 * start with `---` has no front matter. Throws an `Error` naming the line when
 * the block is malformed or never closed.
 *
 * @example
 * parseFrontMatter("---\ntitle: Intro\n---\n# Intro\n").attributes.title; // "Intro"
 */
export function parseFrontMatter(source: string): FrontMatterDocument {
  const text = source.replace(/^\uFEFF/, "").replace(/\r\n?/g, "\n");
  const lines = text.split("\n");
  if (lines[0]?.trimEnd() !== FENCE) return { attributes: {}, body: text };

  const attributes = new Map<string, string>();
  let currentKey: string | undefined;
  for (let index = 1; index < lines.length; index += 1) {
    const line = lines[index] ?? "";
    const lineNumber = index + 1;
    if (line.trimEnd() === FENCE) {
      return {
        attributes: Object.fromEntries(attributes),
        body: lines.slice(index + 1).join("\n"),
      };
    }
    if (line.trim() === "" || line.trimStart().startsWith("#")) continue;
    if (/^\s/.test(line) && currentKey !== undefined) {
      const previous = attributes.get(currentKey) ?? "";
      const next = unquote(line, lineNumber);
      attributes.set(currentKey, previous === "" ? next : `${previous} ${next}`);
      continue;
    }
    const match = KEY_LINE.exec(line);
    if (!match) throw new Error(`line ${lineNumber}: expected "key: value"`);
    const key = match[1] ?? "";
    const rawValue = (match[2] ?? "").trim();
    if (attributes.has(key)) {
      throw new Error(`line ${lineNumber}: "${key}" is given twice`);
    }
    attributes.set(key, BLOCK_INDICATOR.test(rawValue) ? "" : unquote(rawValue, lineNumber));
    currentKey = key;
  }
  throw new Error(`the front matter opened on line 1 is never closed with "${FENCE}"`);
}
