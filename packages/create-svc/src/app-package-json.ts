import { ScaffoldError } from "./errors.js";

/**
 * Development dependencies every generated app gets (its `typecheck`
 * script), whatever its example lists.
 */
export const APP_DEV_DEPENDENCIES = ["@types/node", "typescript"] as const;

/** What the generated `package.json` takes from the template. */
export interface AppPackageTemplate {
  readonly dependencies: readonly string[];
  readonly devDependencies: readonly string[];
  /** The web build (`esbuild web/main.tsx … --outfile=public/app.js`), when the template has one. */
  readonly build?: string | undefined;
  /** Writes the front end's `Api` type (`svc codegen --out web/svc-api.ts`), when the template has one. */
  readonly codegen?: string | undefined;
  /** Loads the template's sample rows into the running app (`svc seed`), when it has some. */
  readonly seed?: string | undefined;
}

/** The `package.json` of a generated app. */
export interface AppPackageJson {
  readonly name: string;
  readonly version: string;
  readonly private: true;
  readonly type: "module";
  readonly scripts: Readonly<Record<string, string>>;
  readonly dependencies: Readonly<Record<string, string>>;
  readonly devDependencies: Readonly<Record<string, string>>;
}

function pick(
  names: readonly string[],
  versions: Readonly<Record<string, string>>,
): Record<string, string> {
  const picked: Record<string, string> = {};
  for (const name of names) {
    const range = versions[name];
    if (range === undefined) {
      throw new ScaffoldError("TEMPLATES_MISSING", {
        message: `The templates index has no version for ${name}.`,
      });
    }
    picked[name] = range;
  }
  return picked;
}

/**
 * The `package.json` of a standalone app named `name` made from `template`.
 * `build` is the template's web build; `dev` runs it (inline, so any
 * package manager works) and serves the app with `SVC_DEV_MODE=true` (a
 * POSIX shell assignment: macOS, Linux, WSL, Git Bash); `start` is the
 * production shape configured only by the environment. `codegen` (the
 * template's, when it has one) rewrites the page's `Api` type, and `seed`
 * (likewise) loads its sample rows into the running app. `links` replaces
 * dependencies by other specifiers (the `link:` paths of a checkout).
 * Throws `TEMPLATES_MISSING` when `versions` lacks a dependency.
 */
export function createAppPackageJson(
  name: string,
  template: AppPackageTemplate,
  versions: Readonly<Record<string, string>>,
  links: Readonly<Record<string, string>> = {},
): AppPackageJson {
  const serve = "SVC_DEV_MODE=true svc-server";
  const dependencies = pick(template.dependencies, versions);
  for (const [dependency, specifier] of Object.entries(links)) {
    if (dependency in dependencies) dependencies[dependency] = specifier;
  }
  const devDependencies = pick(
    [...new Set([...template.devDependencies, ...APP_DEV_DEPENDENCIES])].sort(),
    versions,
  );
  return {
    name,
    version: "0.1.0",
    private: true,
    type: "module",
    scripts: {
      ...(template.build !== undefined && { build: template.build }),
      ...(template.codegen !== undefined && { codegen: template.codegen }),
      ...(template.seed !== undefined && { seed: template.seed }),
      dev: template.build === undefined ? serve : `${template.build} && ${serve}`,
      start: "svc-server",
      // Every template ships policies.test.json beside the manifest.
      test: "svc policy test",
      typecheck: "tsc --noEmit",
    },
    dependencies,
    devDependencies,
  };
}
