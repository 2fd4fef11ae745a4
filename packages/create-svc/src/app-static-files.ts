/** What the generated `tsconfig.json` checks, beyond the defaults. */
export interface AppTsconfigOptions {
  /** The directories type-checked (`["functions", "web"]`): the `include` list. */
  readonly include: readonly string[];
  /**
   * The template's own compiler options (a front end's `jsx` and DOM
   * `lib`); each replaces the default of that name. Options that only make
   * sense inside the svc repository are dropped, see `MONOREPO_ONLY_OPTIONS`.
   */
  readonly compilerOptions?: Readonly<Record<string, unknown>>;
}

/**
 * Compiler options an example may set for the monorepo's build that a
 * standalone app must not inherit: they point at files or an export
 * condition only the svc repository has.
 */
export const MONOREPO_ONLY_OPTIONS: ReadonlySet<string> = new Set([
  "customConditions",
  "paths",
  "baseUrl",
  "rootDir",
  "outDir",
  "composite",
  "tsBuildInfoFile",
  "incremental",
  "declaration",
  "declarationMap",
]);

/**
 * The `tsconfig.json` of a generated app: strict, Node ESM, no emit (the
 * server runs the function files without a build step, esbuild bundles the
 * front end), with the template's compiler options on top and no `extends`.
 *
 * @example
 * ```ts
 * createAppTsconfig({ include: ["functions", "web"], compilerOptions: { jsx: "react-jsx" } });
 * ```
 */
export function createAppTsconfig(options: AppTsconfigOptions): Record<string, unknown> {
  const own = Object.entries(options.compilerOptions ?? {}).filter(
    ([option]) => !MONOREPO_ONLY_OPTIONS.has(option),
  );
  return {
    compilerOptions: {
      target: "ES2023",
      lib: ["ES2023"],
      module: "NodeNext",
      moduleResolution: "NodeNext",
      strict: true,
      noUncheckedIndexedAccess: true,
      verbatimModuleSyntax: true,
      isolatedModules: true,
      skipLibCheck: true,
      noEmit: true,
      types: ["node"],
      ...Object.fromEntries(own),
    },
    include: [...options.include],
  };
}

/**
 * The files a web build script writes (relative to the app, `/`-separated):
 * esbuild's `--outfile`, and its source map when `--sourcemap` writes one. Empty
 * when the script names no `--outfile`.
 *
 * @example
 * ```ts
 * webBuildOutputs("esbuild web/main.tsx --bundle --sourcemap --outfile=public/app.js");
 * // ["public/app.js", "public/app.js.map"]
 * ```
 */
export function webBuildOutputs(build: string): string[] {
  const outfile = /(?:^|\s)--outfile[= ]("[^"]+"|'[^']+'|\S+)/.exec(build)?.[1];
  if (outfile === undefined) return [];
  const path = outfile.replace(/^["']|["']$/g, "").replace(/^\.\//, "");
  const sourcemap = /(?:^|\s)--sourcemap(?:=(\S+))?(?:\s|$)/.exec(build);
  // `--sourcemap=inline` puts the map inside the bundle; every other mode writes `<outfile>.map`.
  return sourcemap !== null && sourcemap[1] !== "inline" ? [path, `${path}.map`] : [path];
}

/**
 * The `.gitignore` of a generated app. `.svc/` holds the dev database and
 * the dev admin token, which must never be committed; the output of the
 * template's web `build` (see `webBuildOutputs`) is ignored too.
 */
export function createAppGitignore(build?: string): string {
  const lines = ["node_modules/", ".svc/", ...(build === undefined ? [] : webBuildOutputs(build))];
  return `${lines.join("\n")}\n`;
}

/**
 * Dependencies whose install scripts a generated app skips, for pnpm's
 * `allowBuilds` (pnpm 10 and later run no install script unless told, and
 * pnpm 11 fails the install over one it was not told about). esbuild ships
 * its binary in a platform package; its script only re-checks it.
 */
export const APP_ALLOW_BUILDS: Readonly<Record<string, boolean>> = {
  esbuild: false,
  // An edge app's miniflare runs workerd, whose binary also comes in a platform package.
  workerd: false,
};

/** What decides whether a generated app gets a `pnpm-workspace.yaml`. */
export interface AppPnpmWorkspaceOptions {
  /** Every dependency and development dependency of the app. */
  readonly dependencies: readonly string[];
  /**
   * Whether the app must be a pnpm workspace root of its own: scaffolded
   * from a checkout, possibly inside it, where pnpm would otherwise take
   * the app for a part of the svc repository's workspace. Default false.
   */
  readonly ownRoot?: boolean;
  /** Dependency overrides (a checkout's packages that copied packages depend on; see `checkoutOverrides`). */
  readonly overrides?: Readonly<Record<string, string>>;
}

/**
 * The `pnpm-workspace.yaml` of a generated app (pnpm's settings file; npm
 * and yarn ignore it): the `allowBuilds` entries of `APP_ALLOW_BUILDS` its
 * dependencies need, and, with `ownRoot`, nothing else but its presence.
 * Undefined when the app needs neither.
 */
export function createAppPnpmWorkspace(options: AppPnpmWorkspaceOptions): string | undefined {
  const builds = Object.entries(APP_ALLOW_BUILDS).filter(([name]) =>
    options.dependencies.includes(name),
  );
  const overrides = Object.entries(options.overrides ?? {});
  if (builds.length === 0 && overrides.length === 0 && options.ownRoot !== true) return undefined;
  const lines = [
    "# pnpm's settings for this app; npm and yarn ignore this file. It also makes",
    "# the app a workspace root of its own: inside an existing pnpm workspace,",
    "# delete it and move its settings to that workspace's file.",
  ];
  if (builds.length > 0) {
    lines.push(
      "",
      "# Install scripts pnpm may skip (false) or run (true). esbuild ships its",
      "# binary in a platform package; its install script only re-checks it.",
      "allowBuilds:",
      ...builds.map(([name, allowed]) => `  ${name}: ${allowed}`),
    );
  }
  if (overrides.length > 0) {
    lines.push(
      "",
      "# Packages of the svc checkout that a copied (file:) package depends on:",
      "# pnpm resolves them in the checkout too.",
      "overrides:",
      ...overrides.map(([name, spec]) => `  ${JSON.stringify(name)}: ${JSON.stringify(spec)}`),
    );
  }
  return `${lines.join("\n")}\n`;
}
