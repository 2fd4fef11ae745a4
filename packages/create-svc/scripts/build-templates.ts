import { cp, mkdir, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { basename, join, relative, sep } from "node:path";
import { createAppTsconfig, webBuildOutputs } from "../src/app-static-files.js";
import { EDGE_APP_PACKAGE } from "../src/edge-app.js";
import { formatJSON } from "../src/format-json.js";
import { TEMPLATES_INDEX_FILE, type TemplateInfo, type TemplatesIndex } from "../src/templates.js";
import {
  readTemplatePackage,
  resolveTemplateVersions,
  type TemplatePackage,
} from "./template-package.js";

/** Directories that never become part of a template, wherever they are. */
const SKIPPED_DIRECTORIES = new Set(["node_modules", "dist", "coverage", "test-artifacts"]);

/**
 * Paths of an example (relative, `/`-separated) a template leaves out: the
 * monorepo's tests and their config (`turbo.json` included), and the files
 * the build step or the scaffold write themselves (`tsconfig.json`,
 * `package.json`, `README.md`).
 * The web build's output stays out too, see `isTemplateFile`.
 */
const SKIPPED_PATHS = new Set([
  "test",
  "vitest.config.ts",
  "turbo.json",
  "tsconfig.json",
  "package.json",
  "README.md",
  "CHANGELOG.md",
]);

/**
 * The line `create-svc --help` shows for a template whose example's
 * `package.json` description speaks about the monorepo instead.
 */
const DESCRIPTIONS: Readonly<Record<string, string>> = {
  todo: "Your todos on a React page: magic-code sign-in, a list live across tabs, queries, mutations and an action.",
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
  return stat(path).then(
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
 * Whether an example's file belongs in its template (`path` relative to the
 * example). `buildOutputs` are the files its web build writes
 * (`public/app.js`), which the generated app builds itself.
 */
export function isTemplateFile(path: string, buildOutputs: readonly string[] = []): boolean {
  const segments = path.split(sep).join("/").split("/");
  const normalized = segments.join("/");
  if (SKIPPED_PATHS.has(normalized) || buildOutputs.includes(normalized)) return false;
  // Dotfiles are local state (`.svc`, `.turbo`) or would not survive npm (`.gitignore`).
  return !segments.some((segment) => segment.startsWith(".") || SKIPPED_DIRECTORIES.has(segment));
}

/**
 * The template's standalone `tsconfig.json`, made from the example's: its
 * compiler options (a front end's `jsx` and DOM `lib`) without the
 * monorepo's `extends`, checking those of its `include` entries the
 * template has (`test` stays behind); the functions directory when the
 * example has no tsconfig.
 */
async function templateTsconfig(
  exampleDir: string,
  templateDir: string,
): Promise<Record<string, unknown>> {
  const manifest = await readJSONObject(join(exampleDir, "svc.json"));
  const functionsDir = typeof manifest.functions === "string" ? manifest.functions : "functions";
  const path = join(exampleDir, "tsconfig.json");
  if (!(await exists(path))) return createAppTsconfig({ include: [functionsDir] });
  const tsconfig = await readJSONObject(path);
  const compilerOptions = tsconfig.compilerOptions ?? {};
  if (!isRecord(compilerOptions)) throw new Error(`${path}: compilerOptions is not an object`);
  const listed: unknown[] = Array.isArray(tsconfig.include) ? tsconfig.include : [functionsDir];
  const include: string[] = [];
  for (const entry of listed) {
    if (typeof entry !== "string") throw new Error(`${path}: include lists a non-string`);
    if (await exists(join(templateDir, entry))) include.push(entry);
  }
  return createAppTsconfig({ include, compilerOptions });
}

/**
 * Copies one example to `outDir/<name>` (manifest, functions, web sources,
 * `public/` without the build output, seed data; see `isTemplateFile`),
 * writes its standalone `tsconfig.json` and reads what its generated app
 * depends on.
 */
async function copyExample(
  exampleDir: string,
  outDir: string,
): Promise<{ name: string; templatePackage: TemplatePackage }> {
  const name = basename(exampleDir);
  const templateDir = join(outDir, name);
  const packagePath = join(exampleDir, "package.json");
  const packageJson = (await exists(packagePath)) ? await readJSONObject(packagePath) : undefined;
  const templatePackage = readTemplatePackage(packageJson, packagePath);
  const buildOutputs =
    templatePackage.build === undefined ? [] : webBuildOutputs(templatePackage.build);
  await cp(exampleDir, templateDir, {
    recursive: true,
    filter: (source) =>
      source === exampleDir || isTemplateFile(relative(exampleDir, source), buildOutputs),
  });
  await writeFile(
    join(templateDir, "tsconfig.json"),
    formatJSON(await templateTsconfig(exampleDir, templateDir)),
  );
  return { name, templatePackage };
}

/**
 * The build step of create-svc: every `examples/<name>` with an `svc.json`
 * becomes `outDir/<name>` (without its tests, `node_modules`, dotfiles or
 * build output), and `outDir/index.json` records the templates (the
 * example's `description` is the line `--help` shows, its dependencies and
 * `build`, `codegen` and `seed` scripts are the generated app's) and one range per
 * dependency.
 */
export async function buildTemplates(options: BuildTemplatesOptions): Promise<TemplatesIndex> {
  const examplesDir = join(options.workspaceRoot, "examples");
  await rm(options.outDir, { recursive: true, force: true });
  await mkdir(options.outDir, { recursive: true });
  const copied: { name: string; templatePackage: TemplatePackage }[] = [];
  const entries = await readdir(examplesDir, { withFileTypes: true });
  for (const entry of entries.sort((a, b) => a.name.localeCompare(b.name))) {
    const exampleDir = join(examplesDir, entry.name);
    if (!entry.isDirectory() || !(await exists(join(exampleDir, "svc.json")))) continue;
    copied.push(await copyExample(exampleDir, options.outDir));
  }
  const workspace = await workspaceVersions(options.workspaceRoot);
  const versions = resolveTemplateVersions(
    [
      ...copied.map((template) => template.templatePackage),
      // An app made with --edge adds @svc/edge and miniflare (src/edge-app.ts);
      // without @svc/edge in the workspace, --edge fails with TEMPLATES_MISSING.
      ...(workspace.has("@svc/edge") ? [EDGE_APP_PACKAGE] : []),
    ],
    {
      workspace,
      catalog: parseCatalog(
        await readFile(join(options.workspaceRoot, "pnpm-workspace.yaml"), "utf8"),
      ),
    },
  );
  const templates = copied.map(
    ({ name, templatePackage }): TemplateInfo => ({
      name,
      description: DESCRIPTIONS[name] ?? templatePackage.description ?? `The ${name} app.`,
      dependencies: Object.keys(templatePackage.dependencies),
      devDependencies: Object.keys(templatePackage.devDependencies),
      ...(templatePackage.build !== undefined && { build: templatePackage.build }),
      ...(templatePackage.codegen !== undefined && { codegen: templatePackage.codegen }),
      ...(templatePackage.seed !== undefined && { seed: templatePackage.seed }),
    }),
  );
  const index: TemplatesIndex = { versions, templates };
  await writeFile(
    join(options.outDir, TEMPLATES_INDEX_FILE),
    `${JSON.stringify(index, null, 2)}\n`,
  );
  return index;
}
