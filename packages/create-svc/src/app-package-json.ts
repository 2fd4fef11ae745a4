import { ScaffoldError } from "./errors.js";

/** Runtime dependencies of a generated app, whose ranges come from the templates index. */
export const APP_DEPENDENCIES = ["@svc/functions", "@svc/server", "zod"] as const;

/** Development dependencies of a generated app (for `npm run typecheck`). */
export const APP_DEV_DEPENDENCIES = ["@types/node", "typescript"] as const;

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
 * The `package.json` of a standalone app named `name`. `dev` serves it with
 * `SVC_DEV_MODE=true` (a POSIX shell assignment: macOS, Linux, WSL, Git
 * Bash), `start` is the production shape configured only by the
 * environment. `links` replaces dependencies by other specifiers (the
 * `link:` paths of a checkout). Throws `TEMPLATES_MISSING` when `versions`
 * lacks a dependency.
 */
export function createAppPackageJson(
  name: string,
  versions: Readonly<Record<string, string>>,
  links: Readonly<Record<string, string>> = {},
): AppPackageJson {
  return {
    name,
    version: "0.1.0",
    private: true,
    type: "module",
    scripts: {
      dev: "SVC_DEV_MODE=true svc-server",
      start: "svc-server",
      typecheck: "tsc --noEmit",
    },
    dependencies: { ...pick(APP_DEPENDENCIES, versions), ...links },
    devDependencies: pick(APP_DEV_DEPENDENCIES, versions),
  };
}
