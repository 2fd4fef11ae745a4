import { existsSync } from "node:fs";
import { mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import { builtinModules } from "node:module";
import { basename, dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { defaultContentDir, defaultSkillPath } from "@svc/agent-docs";
import { functionFileNames } from "@svc/functions";
import { parseManifest } from "@svc/schema";
import { build } from "esbuild";
import { planMigration } from "./migrations.js";

/** Options of `buildEdgeApp`. */
export interface BuildEdgeOptions {
  /** The app's manifest file (`svc.json`). */
  readonly manifestPath: string;
  /** Where the Worker goes: `worker.js`, `wrangler.jsonc`, `migrations/`. */
  readonly outDir: string;
  /** The Worker's name in `wrangler.jsonc`. Default: the manifest's `name`. */
  readonly name?: string;
  /** `compatibility_date` of a new `wrangler.jsonc`. Default "2025-09-15". */
  readonly compatibilityDate?: string;
  /** Bundle svc's documentation for the agent API and MCP. Default true. */
  readonly docs?: boolean;
  /** Minify the bundle. Default true. */
  readonly minify?: boolean;
}

/** What `buildEdgeApp` wrote. */
export interface BuildEdgeResult {
  readonly workerPath: string;
  /** The migration written by this build, or null when the schema did not change. */
  readonly migrationPath: string | null;
  readonly wranglerPath: string;
  /** Whether `wrangler.jsonc` was written (false: an existing one was kept). */
  readonly wranglerWritten: boolean;
  readonly functions: readonly string[];
  readonly bytes: number;
}

// The Worker routes a function by name; longer names are refused at build time.
const MAX_FUNCTION_NAME = 100;

/** This package's root: the nearest directory above this module with its package.json. */
function packageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, "package.json"))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error("svc-edge: cannot find the @svc/edge package");
    dir = parent;
  }
  return dir;
}

/** A module of this package: from `src/` when running from source (tests), else from `dist/`. */
function ownFile(name: string): string {
  const root = packageRoot();
  const fromSource = fileURLToPath(import.meta.url).includes(`${join(root, "src")}`);
  const source = join(root, "src", `${name}.ts`);
  const built = join(root, "dist", `${name}.js`);
  const path = fromSource ? source : built;
  if (!existsSync(path)) throw new Error(`svc-edge: cannot find ${path}`);
  return path;
}

async function functionFiles(dir: string): Promise<{ name: string; path: string }[]> {
  let entries: string[];
  try {
    entries = await readdir(dir);
  } catch {
    return [];
  }
  // Which files are functions: the server's loader's rules (@svc/functions).
  const { files, problem } = functionFileNames(entries);
  if (problem?.kind === "duplicate") {
    throw new Error(`svc-edge: two files define function ${problem.name}; keep one.`);
  }
  const invalid =
    problem?.entry ?? files.find((file) => file.name.length > MAX_FUNCTION_NAME)?.entry;
  if (invalid !== undefined) {
    throw new Error(`svc-edge: ${invalid} has no valid function name (letters, digits, _).`);
  }
  return files.map((file) => ({ name: file.name, path: join(dir, file.entry) }));
}

async function docsSources(): Promise<{
  pages: { path: string; source: string }[];
  skill: string;
}> {
  const root = defaultContentDir();
  const pages: { path: string; source: string }[] = [];
  for (const section of await readdir(root, { withFileTypes: true })) {
    if (!section.isDirectory() || section.name.startsWith(".")) continue;
    for (const file of await readdir(join(root, section.name))) {
      if (!file.endsWith(".md") || file.startsWith(".")) continue;
      pages.push({
        path: `${section.name}/${file.slice(0, -3)}`,
        source: await readFile(join(root, section.name, file), "utf8"),
      });
    }
  }
  return { pages, skill: await readFile(defaultSkillPath(), "utf8") };
}

function wranglerConfig(name: string, compatibilityDate: string): string {
  const config = {
    $schema: "node_modules/wrangler/config-schema.json",
    name,
    main: "worker.js",
    compatibility_date: compatibilityDate,
    // node:crypto, node:async_hooks, Buffer and timers with unref(), which svc's packages use.
    compatibility_flags: ["nodejs_compat", "enable_nodejs_global_timers"],
    d1_databases: [
      {
        binding: "DB",
        database_name: name,
        database_id: "REPLACE_WITH_THE_ID_FROM_wrangler_d1_create",
        migrations_dir: "migrations",
      },
    ],
    // Secrets (wrangler secret put): SVC_ADMIN_TOKEN, SVC_JWT_SECRET, SVC_EMAIL_API_KEY.
    vars: {},
  };
  return `// Written by svc-edge build; edit freely, later builds keep this file.\n${JSON.stringify(config, null, 2)}\n`;
}

/**
 * Bundles an svc app into a Cloudflare Worker directory: `worker.js` (the
 * manifest, every function file and svc's docs inside; no disk at run
 * time), the D1 migration for what changed since the directory's last
 * build, and a `wrangler.jsonc` when there is none yet.
 *
 * @example
 * const result = await buildEdgeApp({ manifestPath: "svc.json", outDir: "edge" });
 * // then: npx wrangler d1 migrations apply <name> --remote && npx wrangler deploy
 */
export async function buildEdgeApp(options: BuildEdgeOptions): Promise<BuildEdgeResult> {
  const manifestPath = resolve(options.manifestPath);
  const outDir = resolve(options.outDir);
  const manifest = parseManifest(JSON.parse(await readFile(manifestPath, "utf8")));
  const functionsDir = resolve(dirname(manifestPath), manifest.functions ?? "functions");
  const functions = await functionFiles(functionsDir);
  await mkdir(join(outDir, "migrations"), { recursive: true });

  const generated = join(outDir, ".svc-edge");
  await mkdir(generated, { recursive: true });
  const entry = join(generated, "entry.mjs");
  const importPath = (path: string): string => JSON.stringify(path.split("\\").join("/"));
  const lines = [
    `import { createWorker } from ${importPath(ownFile("worker"))};`,
    `import manifest from ${importPath(manifestPath)} with { type: "json" };`,
    ...functions.map((file, i) => `import * as fn${i} from ${importPath(file.path)};`),
  ];
  if (options.docs !== false) {
    await writeFile(join(generated, "docs.json"), JSON.stringify(await docsSources()));
    lines.push(`import docs from "./docs.json" with { type: "json" };`);
  }
  lines.push(
    "const functions = new Map([",
    ...functions.map((file, i) => `  [${JSON.stringify(file.name)}, fn${i}.default],`),
    "]);",
    `export default createWorker({ manifest, functions${options.docs !== false ? ", docs" : ""}, version: ${JSON.stringify(manifest.version ?? "0.0.0")} });`,
  );
  await writeFile(entry, `${lines.join("\n")}\n`);

  const workerPath = join(outDir, "worker.js");
  const result = await build({
    entryPoints: [entry],
    outfile: workerPath,
    bundle: true,
    format: "esm",
    platform: "neutral",
    target: "es2022",
    minify: options.minify !== false,
    sourcemap: false,
    metafile: true,
    logLevel: "silent",
    // What the app's files import (@svc/functions, zod) is found beside the
    // app first, then among this package's own dependencies.
    nodePaths: [join(packageRoot(), "node_modules")],
    // Workspace packages from their TypeScript source when present, else dist.
    conditions: ["@svc/source", "workerd", "worker", "import", "module", "default"],
    mainFields: ["module", "main"],
    // workerd serves node: modules under nodejs_compat.
    external: ["node:*", ...builtinModules],
    alias: {
      // auth-core's password hashing: the native module becomes argon2id in JavaScript.
      "@node-rs/argon2": ownFile("platform/argon2"),
      // @svc/functions' file loader is never called here; its tsx import must not load.
      "tsx/esm/api": ownFile("platform/no-tsx"),
    },
  });
  const bytes = Object.values(result.metafile.outputs).reduce(
    (sum, output) => sum + output.bytes,
    0,
  );

  const migrationsDir = join(outDir, "migrations");
  const statements = await planMigration(manifest, migrationsDir);
  let migrationPath: string | null = null;
  if (statements.length > 0) {
    const existing = (await readdir(migrationsDir)).filter((file) => /^\d{4}_/.test(file));
    const number = String(existing.length + 1).padStart(4, "0");
    migrationPath = join(migrationsDir, `${number}_svc.sql`);
    await writeFile(
      migrationPath,
      `-- svc-edge build: ${manifest.name} ${manifest.version ?? ""}\n${statements.map((statement) => `${statement};`).join("\n")}\n`,
    );
  }

  const wranglerPath = join(outDir, "wrangler.jsonc");
  const wranglerWritten = !existsSync(wranglerPath);
  if (wranglerWritten) {
    const name = (options.name ?? manifest.name).toLowerCase().replace(/[^a-z0-9-]+/g, "-");
    await writeFile(wranglerPath, wranglerConfig(name, options.compatibilityDate ?? "2025-09-15"));
  }
  return {
    workerPath,
    migrationPath,
    wranglerPath,
    wranglerWritten,
    functions: functions.map((file) => file.name),
    bytes,
  };
}

/** The path of `file` relative to the current directory, for messages. */
export function shown(file: string): string {
  const path = relative(process.cwd(), file);
  return path.startsWith("..") ? file : path || basename(file);
}
