import type { z } from "zod";
import type { ManifestIssue } from "./errors.js";
import { fieldKinds } from "./field-kinds.js";

/**
 * Turns zod's findings about a manifest into what its author can act on:
 * where the problem is, named by the entity, field, index, policy or room
 * (`Todo.title`), what is wrong in plain words, and the nearest valid
 * spelling when a name looks like a typo.
 */

/** Properties each part of a manifest may have, for "did you mean" on unknown ones. */
const KNOWN_PROPERTIES = {
  manifest: [
    "manifest_version",
    "name",
    "version",
    "auth",
    "entities",
    "policies",
    "rooms",
    "functions",
  ],
  entity: ["name", "fields", "indexes"],
  field: [
    "name",
    "type",
    "optional",
    "unique",
    "owner",
    "maxBytes",
    "defaultNow",
    "target",
    "values",
  ],
  index: ["name", "fields", "unique"],
  policy: ["name", "entity", "allowRead", "allowInsert", "allowUpdate", "allowDelete"],
  room: ["name", "join", "maxMembers", "tickMs"],
} as const;

/** Which modifiers belong to which field kinds (a modifier on another kind is a common slip). */
const MODIFIER_HOME: Record<string, string> = {
  owner: "string",
  defaultNow: "datetime",
  target: "id",
  values: "enum",
  maxBytes: "string or json",
};

/** Edit distance (insertions, deletions, substitutions, adjacent swaps), case-insensitive. */
export function editDistance(a: string, b: string): number {
  const x = a.toLowerCase();
  const y = b.toLowerCase();
  const rows: number[][] = Array.from({ length: x.length + 1 }, (_, i) =>
    Array.from({ length: y.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i <= x.length; i += 1) {
    const row = rows[i] as number[];
    const previous = rows[i - 1] as number[];
    for (let j = 1; j <= y.length; j += 1) {
      const cost = x[i - 1] === y[j - 1] ? 0 : 1;
      let best = Math.min(
        (previous[j] as number) + 1,
        (row[j - 1] as number) + 1,
        (previous[j - 1] as number) + cost,
      );
      if (i > 1 && j > 1 && x[i - 1] === y[j - 2] && x[i - 2] === y[j - 1]) {
        best = Math.min(best, (rows[i - 2]?.[j - 2] as number) + 1);
      }
      row[j] = best;
    }
  }
  return rows[x.length]?.[y.length] as number;
}

/**
 * The candidate nearest to `word`, when it is close enough to be a typo
 * (at most a third of the word's letters off, at least one), else undefined.
 *
 * @example
 * nearest("strng", ["string", "int"]); // "string"
 */
export function nearest(word: string, candidates: Iterable<string>): string | undefined {
  const allowed = Math.max(1, Math.floor(word.length / 3));
  let best: { name: string; distance: number } | undefined;
  for (const candidate of candidates) {
    if (candidate === word) continue;
    const distance = editDistance(word, candidate);
    if (distance <= allowed && (best === undefined || distance < best.distance)) {
      best = { name: candidate, distance };
    }
  }
  return best?.name;
}

/** `; did you mean "x"?` for a close candidate, else nothing. */
export function didYouMean(word: string, candidates: Iterable<string>): string {
  const match = nearest(word, candidates);
  return match === undefined ? "" : `; did you mean "${match}"?`;
}

/** Renders a zod path as `entities[2].fields[0].type`. */
export function formatPath(path: readonly PropertyKey[]): string {
  let out = "";
  for (const part of path) {
    if (typeof part === "number") out += `[${part}]`;
    else out += out === "" ? String(part) : `.${String(part)}`;
  }
  return out || "(root)";
}

type Part = "manifest" | "entity" | "field" | "index" | "policy" | "room" | "other";

/** Where a path points, in the author's terms, and what lies past that part. */
interface Location {
  readonly where: string;
  readonly part: Part;
  /** The object the path reached (the field, the index...), as written. */
  readonly node: unknown;
  /** The property path inside that part, e.g. `["type"]`. */
  readonly rest: readonly PropertyKey[];
}

function nameOf(node: unknown): string | undefined {
  const name = (node as { name?: unknown } | null | undefined)?.name;
  return typeof name === "string" && name !== "" ? name : undefined;
}

function at(node: unknown, key: PropertyKey): unknown {
  if (node === null || typeof node !== "object") return undefined;
  return (node as Record<PropertyKey, unknown>)[key];
}

/** Locates `path` in the manifest as written (`input`), naming what it can. */
export function locate(input: unknown, path: readonly PropertyKey[]): Location {
  const [head, index, ...rest] = path;
  if (head === "entities" && typeof index === "number") {
    const entity = at(at(input, "entities"), index);
    const entityName = nameOf(entity) ?? `entities[${index}]`;
    const [kind, position, ...inner] = rest;
    if (kind === "fields" && typeof position === "number") {
      const field = at(at(entity, "fields"), position);
      const fieldName = nameOf(field) ?? `fields[${position}]`;
      return { where: `${entityName}.${fieldName}`, part: "field", node: field, rest: inner };
    }
    if (kind === "indexes" && typeof position === "number") {
      const indexDef = at(at(entity, "indexes"), position);
      const indexName = nameOf(indexDef) ?? `indexes[${position}]`;
      return {
        where: `${entityName} index ${indexName}`,
        part: "index",
        node: indexDef,
        rest: inner,
      };
    }
    return { where: entityName, part: "entity", node: entity, rest };
  }
  if ((head === "policies" || head === "rooms") && typeof index === "number") {
    const node = at(at(input, head), index);
    const label = head === "policies" ? "policy" : "room";
    const name = nameOf(node);
    return {
      where: name === undefined ? `${head}[${index}]` : `${label} "${name}"`,
      part: label,
      node,
      rest,
    };
  }
  if (path.length === 0) return { where: "manifest", part: "manifest", node: input, rest: [] };
  return { where: formatPath(path), part: "other", node: undefined, rest: [] };
}

/** Prefixes a generic message with the property it is about (`the name must...`). */
function aboutProperty(rest: readonly PropertyKey[], message: string): string {
  if (rest.length === 0) return message;
  if (rest.length === 1 && rest[0] === "name") return `the name ${message}`;
  return `\`${formatPath(rest)}\`: ${message}`;
}

/** The issues of one unrecognized-keys finding, one per key. */
function unknownKeys(input: unknown, issue: z.core.$ZodIssueUnrecognizedKeys): ManifestIssue[] {
  const location = locate(input, issue.path);
  const known: readonly string[] = location.part === "other" ? [] : KNOWN_PROPERTIES[location.part];
  return issue.keys.map((key) => {
    const home = location.part === "field" ? MODIFIER_HOME[key] : undefined;
    const where =
      location.rest.length === 0
        ? location.where
        : `${location.where}.${formatPath(location.rest)}`;
    return {
      path: formatPath([...issue.path, key]),
      where,
      message:
        home !== undefined
          ? `\`${key}\` is allowed only on ${home} fields`
          : `unknown property \`${key}\`${didYouMean(key, known)}`,
    };
  });
}

/** zod's wording of common findings in plain terms (`must be at least 1`). */
function plainMessage(input: unknown, issue: z.core.$ZodIssue): string {
  if (issue.code === "too_small" && issue.origin === "number") {
    return `must be at least ${String(issue.minimum)}`;
  }
  if (issue.code === "too_big" && issue.origin === "number") {
    return `must be at most ${String(issue.maximum)}`;
  }
  if (issue.code === "invalid_type") {
    const written = issue.path.reduce<unknown>((node, key) => at(node, key), input);
    const expected = issue.expected === "array" ? "an array" : `a ${issue.expected}`;
    return written === undefined ? `is required (${expected})` : `must be ${expected}`;
  }
  return issue.message;
}

/** Every zod finding as a `ManifestIssue` located and worded for the author. */
export function describeIssues(input: unknown, error: z.ZodError): ManifestIssue[] {
  const issues: ManifestIssue[] = [];
  for (const issue of error.issues) {
    if (issue.code === "unrecognized_keys") {
      issues.push(...unknownKeys(input, issue));
      continue;
    }
    const location = locate(input, issue.path);
    const path = formatPath(issue.path);
    const isType = location.part === "field" && location.rest.join(".") === "type";
    if (isType && issue.code === "invalid_union") {
      const written = at(location.node, "type");
      const kinds = fieldKinds.join(", ");
      issues.push({
        path,
        where: location.where,
        message:
          typeof written === "string"
            ? `unknown type "${written}"${didYouMean(written, fieldKinds)} (types: ${kinds})`
            : `\`type\` is missing or not a string (types: ${kinds})`,
      });
      continue;
    }
    // Messages written for the manifest already say what they are about.
    const message =
      issue.code === "custom"
        ? issue.message
        : aboutProperty(location.rest, plainMessage(input, issue));
    issues.push({ path, where: location.where, message });
  }
  return issues;
}

/** The lines of an `INVALID_MANIFEST` message: `Todo.title: ... (entities[1].fields[0].type)`. */
export function formatIssues(issues: readonly ManifestIssue[]): string {
  const lines = issues.map(
    (issue) => `  ${issue.where ?? issue.path}: ${issue.message} (${issue.path})`,
  );
  const count = issues.length === 1 ? "1 problem" : `${issues.length} problems`;
  return `Invalid manifest (${count}):\n${lines.join("\n")}`;
}
