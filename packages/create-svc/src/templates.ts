import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { ScaffoldError } from "./errors.js";

/** One starter template, as `create-svc --help` lists it. */
export interface TemplateInfo {
  /** The name `--template` takes, the example's directory name (`todo`). */
  readonly name: string;
  /** One line on what the template contains (the example's description). */
  readonly description: string;
  /** Names of the generated app's dependencies; their ranges are in the index's `versions`. */
  readonly dependencies: readonly string[];
  /** Names of the generated app's development dependencies (type-checking, the web build). */
  readonly devDependencies: readonly string[];
  /** The example's `build` script (its web build), when it has one. */
  readonly build?: string;
  /** The example's `codegen` script (the client's `Api` type, `svc codegen`), when it has one. */
  readonly codegen?: string;
  /** The example's `seed` script (`svc seed`: its sample rows into the running app), when it has one. */
  readonly seed?: string;
}

/**
 * What the build step writes to `<templatesDir>/index.json`: the templates
 * and the version ranges the generated `package.json` uses.
 */
export interface TemplatesIndex {
  /** Dependency name to range (`"@svc/server": "^0.1.0"`), fixed at build time. */
  readonly versions: Readonly<Record<string, string>>;
  /** Every template, sorted by name; each is a directory `<templatesDir>/<name>`. */
  readonly templates: readonly TemplateInfo[];
}

/** The name of the index file inside a templates directory. */
export const TEMPLATES_INDEX_FILE = "index.json";

/**
 * The templates shipped with this package: `templates/` beside `dist/` (and
 * beside `src/` in the workspace), filled by the build step.
 */
export function defaultTemplatesDir(): string {
  return fileURLToPath(new URL("../templates", import.meta.url));
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isStringArray(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((item) => typeof item === "string");
}

function isTemplateInfo(value: unknown): value is TemplateInfo {
  return (
    isRecord(value) &&
    typeof value.name === "string" &&
    typeof value.description === "string" &&
    isStringArray(value.dependencies) &&
    isStringArray(value.devDependencies) &&
    (value.build === undefined || typeof value.build === "string") &&
    (value.codegen === undefined || typeof value.codegen === "string") &&
    (value.seed === undefined || typeof value.seed === "string")
  );
}

function parseTemplatesIndex(value: unknown): TemplatesIndex | undefined {
  if (!isRecord(value) || !isRecord(value.versions) || !Array.isArray(value.templates)) {
    return undefined;
  }
  const versions: Record<string, string> = {};
  for (const [name, range] of Object.entries(value.versions)) {
    if (typeof range !== "string") return undefined;
    versions[name] = range;
  }
  const templates: TemplateInfo[] = [];
  for (const entry of value.templates) {
    if (!isTemplateInfo(entry)) return undefined;
    // Every dependency needs its range: a template naming one the index lacks is malformed.
    const names = [...entry.dependencies, ...entry.devDependencies];
    if (names.some((name) => versions[name] === undefined)) return undefined;
    templates.push({
      name: entry.name,
      description: entry.description,
      dependencies: [...entry.dependencies],
      devDependencies: [...entry.devDependencies],
      ...(entry.build !== undefined && { build: entry.build }),
      ...(entry.codegen !== undefined && { codegen: entry.codegen }),
      ...(entry.seed !== undefined && { seed: entry.seed }),
    });
  }
  return { versions, templates };
}

/**
 * Reads and checks `<templatesDir>/index.json`. Throws `ScaffoldError`
 * `TEMPLATES_MISSING` when it is absent or malformed (in the workspace: run
 * `pnpm build` in packages/create-svc first).
 */
export async function readTemplatesIndex(
  templatesDir: string = defaultTemplatesDir(),
): Promise<TemplatesIndex> {
  const path = join(templatesDir, TEMPLATES_INDEX_FILE);
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (cause) {
    throw new ScaffoldError("TEMPLATES_MISSING", {
      message: `No templates index at ${path}; the package is not built or is incomplete.`,
      cause,
    });
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (cause) {
    throw new ScaffoldError("TEMPLATES_MISSING", {
      message: `The templates index ${path} is not valid JSON.`,
      cause,
    });
  }
  const index = parseTemplatesIndex(parsed);
  if (index === undefined) {
    throw new ScaffoldError("TEMPLATES_MISSING", {
      message: `The templates index ${path} does not have the expected shape.`,
    });
  }
  return index;
}

/**
 * The available templates, sorted by name.
 *
 * @example
 * ```ts
 * for (const template of await listTemplates()) {
 *   console.log(`${template.name}: ${template.description}`);
 * }
 * ```
 */
export async function listTemplates(
  templatesDir: string = defaultTemplatesDir(),
): Promise<readonly TemplateInfo[]> {
  return (await readTemplatesIndex(templatesDir)).templates;
}
