import { cp, mkdir, readdir, readFile, stat, writeFile } from "node:fs/promises";
import { basename, extname, join, relative, resolve, sep } from "node:path";
import { createAppPackageJson } from "./app-package-json.js";
import { type AppFunction, type AppReadmeInput, createAppReadme } from "./app-readme.js";
import {
  createAppGitignore,
  createAppPnpmWorkspace,
  createAppTsconfig,
} from "./app-static-files.js";
import { checkoutLinks, checkoutOverrides, checkoutPnpmVersion } from "./checkout.js";
import {
  assertEdgeTemplate,
  createEdgeGitignore,
  createEdgePackageJson,
  createEdgeReadme,
  EDGE_APP_PACKAGE,
  EDGE_DEV_FILE,
} from "./edge-app.js";
import { EDGE_DEV_SCRIPT } from "./edge-dev-script.js";
import { ScaffoldError } from "./errors.js";
import { formatJSON } from "./format-json.js";
import { summarizeFunction } from "./function-summary.js";
import { defaultTemplatesDir, readTemplatesIndex } from "./templates.js";
import { suggestPackageName, validatePackageName } from "./validate-name.js";

/** The template `scaffold` uses when none is named. */
export const DEFAULT_TEMPLATE = "default";

/** Directories never copied from a template (build output, local state). */
const SKIPPED_DIRECTORIES = new Set(["node_modules", ".svc", "dist", ".turbo"]);

/** Files of a template the scaffold writes itself instead of copying. */
const GENERATED_FILES = new Set([
  "svc.json",
  "package.json",
  "README.md",
  ".gitignore",
  "pnpm-workspace.yaml",
]);

/** Entries a target directory may already hold and still count as empty. */
const IGNORED_TARGET_ENTRIES = new Set([".git"]);

const FUNCTION_FILE = /^[A-Za-z][A-Za-z0-9_]*\.(ts|mts|js|mjs)$/;

/** What `scaffold` takes. */
export interface ScaffoldOptions {
  /** The template's name; default `"default"`. See `listTemplates()`. */
  readonly template?: string;
  /**
   * Where to create the app, resolved against the working directory. It may
   * exist if it is empty (a `.git` directory is allowed). Its last segment
   * becomes the package name and the manifest's `name`.
   */
  readonly targetDir: string;
  /** A directory of built templates; default the ones shipped with create-svc. */
  readonly templatesDir?: string;
  /**
   * A built checkout of the svc repository: the app depends on its `@svc/*`
   * packages (`@svc/server`, `@svc/functions`, `@svc/client`, …) through
   * `link:` and `file:` paths (install it with pnpm; see `checkoutLinks`)
   * instead of the registry's releases.
   */
  readonly checkout?: string;
  /**
   * Make an edge app (experimental): `build` is `svc build --target edge`
   * (a Cloudflare Worker on D1 in `edge/`), `dev` serves it locally in
   * workerd through miniflare (`edge-dev.mjs`). Only for templates without
   * a page; others throw `EDGE_UNSUPPORTED`.
   */
  readonly edge?: boolean;
}

/** What `scaffold` made. */
export interface ScaffoldResult {
  /** Absolute path of the new app. */
  readonly targetDir: string;
  /** The package name (the target directory's last segment). */
  readonly name: string;
  /** The template used. */
  readonly template: string;
  /** Every file written, relative to `targetDir` with `/` separators, sorted. */
  readonly files: readonly string[];
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

async function assertEmptyTarget(targetDir: string): Promise<void> {
  let entries: string[];
  try {
    entries = await readdir(targetDir);
  } catch (error) {
    const code = isRecord(error) ? error.code : undefined;
    if (code === "ENOENT") return;
    throw new ScaffoldError("TARGET_NOT_EMPTY", {
      message:
        code === "ENOTDIR"
          ? `${targetDir} exists and is not a directory.`
          : `${targetDir} cannot be read.`,
      cause: error,
    });
  }
  if (entries.some((entry) => !IGNORED_TARGET_ENTRIES.has(entry))) {
    throw new ScaffoldError("TARGET_NOT_EMPTY", {
      message: `${targetDir} is not empty; choose a new directory or empty this one.`,
    });
  }
}

async function readTemplateManifest(path: string): Promise<Record<string, unknown>> {
  try {
    const manifest: unknown = JSON.parse(await readFile(path, "utf8"));
    if (isRecord(manifest)) return manifest;
  } catch (cause) {
    throw new ScaffoldError("TEMPLATES_MISSING", {
      message: `The template manifest ${path} cannot be read.`,
      cause,
    });
  }
  throw new ScaffoldError("TEMPLATES_MISSING", {
    message: `The template manifest ${path} is not a JSON object.`,
  });
}

function entityNames(manifest: Record<string, unknown>): string[] {
  const entities = Array.isArray(manifest.entities) ? manifest.entities : [];
  return entities.flatMap((entity) =>
    isRecord(entity) && typeof entity.name === "string" ? [entity.name] : [],
  );
}

/** The functions of a directory, with what their sources show (see `summarizeFunction`). */
async function readFunctions(functionsDir: string): Promise<AppFunction[]> {
  const entries = await readdir(functionsDir, { withFileTypes: true });
  const files = entries
    .filter((entry) => entry.isFile() && FUNCTION_FILE.test(entry.name))
    .map((entry) => entry.name)
    .sort();
  return Promise.all(
    files.map(async (file) => {
      const summary = summarizeFunction(await readFile(join(functionsDir, file), "utf8"));
      return { name: basename(file, extname(file)), ...summary };
    }),
  );
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}

/** The directories at the top of a template (`functions`, `web`, `public`), sorted. */
async function topLevelDirectories(templateDir: string): Promise<string[]> {
  const entries = await readdir(templateDir, { withFileTypes: true });
  return entries
    .filter((entry) => entry.isDirectory() && !SKIPPED_DIRECTORIES.has(entry.name))
    .map((entry) => entry.name)
    .sort();
}

async function listFiles(root: string): Promise<string[]> {
  const entries = await readdir(root, { recursive: true, withFileTypes: true });
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) => relative(root, join(entry.parentPath, entry.name)).split(sep).join("/"))
    .filter((path) => !path.startsWith(".git/"))
    .sort();
}

/**
 * Creates a standalone svc app from a template: the template's `svc.json`
 * (its `name` set to the app's), functions, and whatever else it holds (a
 * React front end's `web/` and `public/`, seed data), its `tsconfig.json`
 * (no `extends`; `jsx` for a front end), plus a generated `package.json`
 * (scripts `build` for a front end, `dev` building it first, `start`,
 * `typecheck`; the template's dependencies at the versions create-svc was
 * built with), `README.md`, `.gitignore`, and a `pnpm-workspace.yaml` when
 * pnpm needs settings (see `createAppPnpmWorkspace`). Throws `ScaffoldError`
 * (`UNKNOWN_TEMPLATE`, `INVALID_NAME`, `TARGET_NOT_EMPTY`,
 * `TEMPLATES_MISSING`, `INVALID_CHECKOUT`) before writing anything.
 *
 * @example
 * ```ts
 * const result = await scaffold({ template: "todo", targetDir: "my-app" });
 * console.log(result.files); // [".gitignore", "README.md", "functions/createList.ts", …]
 * ```
 */
export async function scaffold(options: ScaffoldOptions): Promise<ScaffoldResult> {
  const templatesDir = options.templatesDir ?? defaultTemplatesDir();
  const templateName = options.template ?? DEFAULT_TEMPLATE;
  const index = await readTemplatesIndex(templatesDir);
  const template = index.templates.find((candidate) => candidate.name === templateName);
  if (template === undefined) {
    const available = index.templates.map((candidate) => candidate.name).join(", ");
    throw new ScaffoldError("UNKNOWN_TEMPLATE", {
      message: `There is no template "${templateName}"; the templates are: ${available}.`,
    });
  }

  const targetDir = resolve(options.targetDir);
  const name = basename(targetDir);
  const problem = validatePackageName(name);
  if (problem !== undefined) {
    throw new ScaffoldError("INVALID_NAME", {
      message: `"${name}" cannot be the app's package name: ${problem} Try "${suggestPackageName(name)}".`,
    });
  }
  if (options.edge === true) assertEdgeTemplate(template);
  await assertEmptyTarget(targetDir);

  const templateDir = join(templatesDir, template.name);
  const manifest = await readTemplateManifest(join(templateDir, "svc.json"));
  const functionsDir = typeof manifest.functions === "string" ? manifest.functions : "functions";
  const functionsSource = resolve(templateDir, functionsDir);
  if (relative(templateDir, functionsSource).startsWith("..")) {
    throw new ScaffoldError("TEMPLATES_MISSING", {
      message: `The template "${template.name}" keeps its functions outside its directory.`,
    });
  }
  let functions: AppFunction[];
  try {
    functions = await readFunctions(functionsSource);
  } catch (cause) {
    throw new ScaffoldError("TEMPLATES_MISSING", {
      message: `The template "${template.name}" has no readable ${functionsDir} directory.`,
      cause,
    });
  }
  const edgeDependencies = options.edge === true ? Object.keys(EDGE_APP_PACKAGE.dependencies) : [];
  const links =
    options.checkout === undefined
      ? {}
      : await checkoutLinks(options.checkout, [...template.dependencies, ...edgeDependencies]);
  const appPackageJson = createAppPackageJson(name, template, index.versions, links);
  const packageJson =
    options.edge === true
      ? createEdgePackageJson(appPackageJson, index.versions, links)
      : appPackageJson;
  const pnpmWorkspace = createAppPnpmWorkspace({
    dependencies: [
      ...Object.keys(packageJson.dependencies),
      ...Object.keys(packageJson.devDependencies),
      // @svc/edge bundles with esbuild; miniflare runs workerd: both ship binaries.
      ...(options.edge === true ? ["esbuild", "workerd"] : []),
    ],
    ownRoot: options.checkout !== undefined,
    overrides:
      options.checkout === undefined ? {} : await checkoutOverrides(options.checkout, links),
  });
  const tsconfigPath = join(templateDir, "tsconfig.json");
  const tsconfig = (await exists(tsconfigPath))
    ? await readFile(tsconfigPath, "utf8")
    : formatJSON(createAppTsconfig({ include: [functionsDir] }));
  const readme: AppReadmeInput = {
    name,
    template,
    entities: entityNames(manifest),
    functions,
    functionsDir,
    directories: await topLevelDirectories(templateDir),
    ...(options.checkout !== undefined && {
      checkout: { pnpm: await checkoutPnpmVersion(options.checkout) },
    }),
  };

  await mkdir(targetDir, { recursive: true });
  await cp(templateDir, targetDir, {
    recursive: true,
    filter: (source) => {
      const path = relative(templateDir, source);
      return !(
        GENERATED_FILES.has(path) || path.split(sep).some((part) => SKIPPED_DIRECTORIES.has(part))
      );
    },
  });
  await writeFile(join(targetDir, "svc.json"), formatJSON({ ...manifest, name }));
  await writeFile(join(targetDir, "package.json"), `${JSON.stringify(packageJson, null, 2)}\n`);
  await writeFile(join(targetDir, "tsconfig.json"), tsconfig);
  if (options.edge === true) {
    await writeFile(join(targetDir, "README.md"), createEdgeReadme(readme));
    await writeFile(join(targetDir, ".gitignore"), createEdgeGitignore());
    await writeFile(join(targetDir, EDGE_DEV_FILE), EDGE_DEV_SCRIPT);
  } else {
    await writeFile(join(targetDir, "README.md"), createAppReadme(readme));
    await writeFile(join(targetDir, ".gitignore"), createAppGitignore(template.build));
  }
  if (pnpmWorkspace !== undefined) {
    await writeFile(join(targetDir, "pnpm-workspace.yaml"), pnpmWorkspace);
  }

  return { targetDir, name, template: template.name, files: await listFiles(targetDir) };
}
