import { APP_DEV_DEPENDENCIES } from "../src/app-package-json.js";

/** What an example without a `package.json` gets: functions, the server and zod. */
const FALLBACK_DEPENDENCIES: Readonly<Record<string, string>> = {
  "@svc/functions": "workspace:*",
  "@svc/server": "workspace:*",
  zod: "catalog:",
};

/**
 * Development dependencies only the monorepo's tests use. Templates ship
 * without `test/` and `vitest.config.ts`, so a generated app never needs them.
 */
export const MONOREPO_ONLY_DEPENDENCIES: ReadonlySet<string> = new Set([
  "@svc/tooling",
  "vitest",
  "playwright-core",
]);

/** What a generated app takes from its example's `package.json`. */
export interface TemplatePackage {
  /** Name to the example's specifier (`workspace:*`, `catalog:`, or a range). */
  readonly dependencies: Readonly<Record<string, string>>;
  readonly devDependencies: Readonly<Record<string, string>>;
  /** The example's `build` script (the web build), when it has one. */
  readonly build?: string;
  /** The example's `codegen` script (`svc codegen --out web/svc-api.ts`), when it has one. */
  readonly codegen?: string;
  /** The example's `seed` script (`svc seed`, loading `seed/`), when it has one. */
  readonly seed?: string;
  /** The example's `description`, the template's line in `create-svc --help`. */
  readonly description?: string;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function specifiers(value: unknown, where: string): Record<string, string> {
  if (value === undefined) return {};
  if (!isRecord(value)) throw new Error(`${where} is not an object`);
  const result: Record<string, string> = {};
  for (const [name, spec] of Object.entries(value)) {
    if (typeof spec !== "string") throw new Error(`${where}.${name} is not a string`);
    result[name] = spec;
  }
  return result;
}

/**
 * The dependencies of the app generated from an example, read from the
 * example's `package.json` (undefined: the historic minimum of
 * `@svc/functions`, `@svc/server`, `zod`). `@svc/server` is always a
 * runtime dependency (the app runs `svc-server`; examples keep it among
 * their dev dependencies for their tests), `typescript` and `@types/node`
 * always development ones (the `typecheck` script), and the monorepo's test
 * tooling is dropped.
 */
export function readTemplatePackage(
  packageJson: Record<string, unknown> | undefined,
  where: string,
): TemplatePackage {
  const own =
    packageJson === undefined
      ? {
          dependencies: FALLBACK_DEPENDENCIES,
          devDependencies: {},
        }
      : {
          dependencies: specifiers(packageJson.dependencies, `${where} dependencies`),
          devDependencies: specifiers(packageJson.devDependencies, `${where} devDependencies`),
        };
  const dependencies: Record<string, string> = { ...own.dependencies };
  dependencies["@svc/server"] ??= own.devDependencies["@svc/server"] ?? "workspace:*";
  const devDependencies: Record<string, string> = {};
  for (const name of APP_DEV_DEPENDENCIES) devDependencies[name] = "catalog:";
  for (const [name, spec] of Object.entries(own.devDependencies)) {
    if (!MONOREPO_ONLY_DEPENDENCIES.has(name) && !(name in dependencies)) {
      devDependencies[name] = spec;
    }
  }
  const scripts = isRecord(packageJson?.scripts) ? packageJson.scripts : {};
  const description = packageJson?.description;
  return {
    dependencies: sortedByName(dependencies),
    devDependencies: sortedByName(devDependencies),
    ...(typeof scripts.build === "string" && { build: scripts.build }),
    ...(typeof scripts.codegen === "string" && { codegen: scripts.codegen }),
    ...(typeof scripts.seed === "string" && { seed: scripts.seed }),
    ...(typeof description === "string" && { description }),
  };
}

function sortedByName(record: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(record).sort(([a], [b]) => a.localeCompare(b)));
}

/** Where a specifier's range comes from: the workspace packages and the default catalog. */
export interface VersionSources {
  /** Workspace package name to its version. */
  readonly workspace: ReadonlyMap<string, string>;
  /** The default catalog of `pnpm-workspace.yaml`: name to range. */
  readonly catalog: ReadonlyMap<string, string>;
}

/**
 * The published range for one dependency: `workspace:…` becomes
 * `^<workspace version>`, `catalog:` the catalog's range, a plain range
 * stays. Throws for what a standalone app cannot use (named catalogs,
 * `link:`, `file:`, unknown packages).
 */
export function resolveRange(name: string, spec: string, sources: VersionSources): string {
  if (spec.startsWith("workspace:")) {
    const version = sources.workspace.get(name);
    if (version === undefined) throw new Error(`${name} is not a package of this workspace`);
    return `^${version}`;
  }
  if (spec === "catalog:" || spec === "catalog:default") {
    const range = sources.catalog.get(name);
    if (range === undefined) throw new Error(`${name} has no entry in the default catalog`);
    return range;
  }
  if (/^(catalog|link|file|portal|git|github|http|https):/.test(spec)) {
    throw new Error(`${name}: "${spec}" cannot be written into a standalone app`);
  }
  return spec;
}

/**
 * The index's `versions`: every dependency of every template, resolved.
 * Throws when two templates resolve one package to different ranges (the
 * index has one range per name).
 */
export function resolveTemplateVersions(
  packages: readonly TemplatePackage[],
  sources: VersionSources,
): Record<string, string> {
  const versions: Record<string, string> = {};
  for (const templatePackage of packages) {
    const all = { ...templatePackage.dependencies, ...templatePackage.devDependencies };
    for (const [name, spec] of Object.entries(all)) {
      const range = resolveRange(name, spec, sources);
      const known = versions[name];
      if (known !== undefined && known !== range) {
        throw new Error(
          `${name} is wanted at both ${known} and ${range}; give the examples one range`,
        );
      }
      versions[name] = range;
    }
  }
  return sortedByName(versions);
}
