import { cp, mkdir, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { basename, join } from "node:path";
import { APP_DEPENDENCIES, APP_DEV_DEPENDENCIES } from "../src/app-package-json.js";
import { TEMPLATES_INDEX_FILE, type TemplateInfo, type TemplatesIndex } from "../src/templates.js";

/** Directories of an example that never become part of a template. */
const SKIPPED_DIRECTORIES = new Set(["node_modules", ".svc", "dist", ".turbo"]);

/**
 * The line `create-svc --help` shows for a template, where the example's own
 * `package.json` description speaks about the monorepo instead.
 */
const DESCRIPTIONS: Readonly<Record<string, string>> = {
  default: "Notes with an owner: one entity, one policy, a mutation and a query.",
  todo: "Lists and todos with an owner: two entities, an index, queries, mutations and an action.",
};

/** Workspace folders whose packages may be dependencies of a generated app. */
const PACKAGE_FOLDERS = ["packages", "apps"];

/** What `buildTemplates` takes. */
export interface BuildTemplatesOptions {
  /** The monorepo root: holds `examples/`, `packages/`, `apps/` and `pnpm-workspace.yaml`. */
  readonly workspaceRoot: string;
  /** Where the templates go (emptied first): `packages/create-svc/templates`. */
  readonly outDir: string;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

async function readJSONObject(path: string): Promise<Record<string, unknown>> {
  const value: unknown = JSON.parse(await readFile(path, "utf8"));
  if (!isRecord(value)) throw new Error(`${path} is not a JSON object`);
  return value;
}

async function exists(path: string): Promise<boolean> {
  return readFile(path).then(
    () => true,
    () => false,
  );
}

/** Name to version of every workspace package under `packages/` and `apps/`. */
async function workspaceVersions(workspaceRoot: string): Promise<Map<string, string>> {
  const versions = new Map<string, string>();
  for (const folder of PACKAGE_FOLDERS) {
    const entries = await readdir(join(workspaceRoot, folder), { withFileTypes: true });
    for (const entry of entries) {
      const path = join(workspaceRoot, folder, entry.name, "package.json");
      if (!entry.isDirectory() || !(await exists(path))) continue;
      const manifest = await readJSONObject(path);
      if (typeof manifest.name === "string" && typeof manifest.version === "string") {
        versions.set(manifest.name, manifest.version);
      }
    }
  }
  return versions;
}

/**
 * The default catalog of `pnpm-workspace.yaml` (`catalog:` with one
 * `name: range` per indented line). A line-based reader is enough for the
 * flat map pnpm writes; named catalogs are not read.
 */
export function parseCatalog(yaml: string): Map<string, string> {
  const catalog = new Map<string, string>();
  let inCatalog = false;
  for (const line of yaml.split(/\r?\n/)) {
    if (/^catalog:\s*$/.test(line)) {
      inCatalog = true;
      continue;
    }
    if (!inCatalog || line.trim() === "" || line.trimStart().startsWith("#")) continue;
    if (!/^\s/.test(line)) break;
    const match = /^\s+(["']?)([^"':\s]+)\1:\s*(["']?)([^"'#\s]+)\3/.exec(line);
    const name = match?.[2];
    const range = match?.[4];
    if (name !== undefined && range !== undefined) catalog.set(name, range);
  }
  return catalog;
}

/**
 * The version range of each dependency of a generated app: `^<version>` for
 * a workspace package (its version when create-svc is built), the catalog
 * range for anything else.
 */
async function resolveVersions(workspaceRoot: string): Promise<Record<string, string>> {
  const workspace = await workspaceVersions(workspaceRoot);
  const catalog = parseCatalog(await readFile(join(workspaceRoot, "pnpm-workspace.yaml"), "utf8"));
  const versions: Record<string, string> = {};
  for (const name of [...APP_DEPENDENCIES, ...APP_DEV_DEPENDENCIES]) {
    const version = workspace.get(name);
    const range = version === undefined ? catalog.get(name) : `^${version}`;
    if (range === undefined) {
      throw new Error(`no workspace package or catalog entry for ${name}`);
    }
    versions[name] = range;
  }
  return versions;
}

/** Copies one example (its `svc.json` and functions directory) to `outDir/<name>`. */
async function copyExample(exampleDir: string, outDir: string): Promise<TemplateInfo> {
  const name = basename(exampleDir);
  const manifest = await readJSONObject(join(exampleDir, "svc.json"));
  const packagePath = join(exampleDir, "package.json");
  const packageJson = (await exists(packagePath)) ? await readJSONObject(packagePath) : {};
  const functionsDir = typeof manifest.functions === "string" ? manifest.functions : "functions";
  const target = join(outDir, name);
  await mkdir(target, { recursive: true });
  await cp(join(exampleDir, "svc.json"), join(target, "svc.json"));
  await cp(join(exampleDir, functionsDir), join(target, functionsDir), {
    recursive: true,
    filter: (source) => !SKIPPED_DIRECTORIES.has(basename(source)),
  });
  const description =
    DESCRIPTIONS[name] ??
    (typeof packageJson.description === "string" ? packageJson.description : `The ${name} app.`);
  return { name, description };
}

/**
 * The build step of create-svc: every `examples/<name>` with an `svc.json`
 * becomes `outDir/<name>` (manifest and functions only; never
 * `node_modules`, `.svc`, `dist`), and `outDir/index.json` records the
 * templates and the dependency ranges a generated app gets.
 */
export async function buildTemplates(options: BuildTemplatesOptions): Promise<TemplatesIndex> {
  const examplesDir = join(options.workspaceRoot, "examples");
  await rm(options.outDir, { recursive: true, force: true });
  await mkdir(options.outDir, { recursive: true });
  const templates: TemplateInfo[] = [];
  const entries = await readdir(examplesDir, { withFileTypes: true });
  for (const entry of entries.sort((a, b) => a.name.localeCompare(b.name))) {
    const exampleDir = join(examplesDir, entry.name);
    if (!entry.isDirectory() || !(await exists(join(exampleDir, "svc.json")))) continue;
    templates.push(await copyExample(exampleDir, options.outDir));
  }
  const index: TemplatesIndex = {
    versions: await resolveVersions(options.workspaceRoot),
    templates,
  };
  await writeFile(
    join(options.outDir, TEMPLATES_INDEX_FILE),
    `${JSON.stringify(index, null, 2)}\n`,
  );
  return index;
}
