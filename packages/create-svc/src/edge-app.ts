import type { AppPackageJson } from "./app-package-json.js";
import type { AppReadmeInput } from "./app-readme.js";
import { ScaffoldError } from "./errors.js";

/**
 * What an app scaffolded with `--edge` depends on besides its template's
 * packages: `@svc/edge` (the Worker that `svc build --target edge` bundles)
 * and, to run it locally, `miniflare` (workerd inside an npm package). The
 * templates build resolves their ranges into the index's `versions`.
 */
export const EDGE_APP_PACKAGE = {
  dependencies: { "@svc/edge": "workspace:*" },
  devDependencies: { miniflare: "catalog:" },
} as const;

/** The file `npm run dev` runs to serve the built Worker locally (see `EDGE_DEV_SCRIPT`). */
export const EDGE_DEV_FILE = "edge-dev.mjs";

/** The build step of an edge app: the Worker directory `edge/` beside `svc.json`. */
export const EDGE_BUILD = "svc build --target edge";

/**
 * Refuses a template the edge Worker cannot serve: one with a page (its
 * live hooks need the server's sync, which the edge answers with
 * `NOT_AVAILABLE_ON_EDGE`). Throws `EDGE_UNSUPPORTED`.
 */
export function assertEdgeTemplate(template: { name: string; build?: string | undefined }): void {
  if (template.build !== undefined) {
    throw new ScaffoldError("EDGE_UNSUPPORTED", {
      message: `The "${template.name}" template has a live page, which the edge worker cannot serve (no live sync there); use --edge with the default template.`,
    });
  }
}

/**
 * The `package.json` of an edge app, from the one `createAppPackageJson`
 * made: `build` bundles the Worker, `dev` builds and serves it locally,
 * `test` and `typecheck` stay; `start` (the Node server) goes. `@svc/edge`
 * and `miniflare` are added at the index's ranges, or at `links` (a
 * checkout's `link:` paths).
 */
export function createEdgePackageJson(
  base: AppPackageJson,
  versions: Readonly<Record<string, string>>,
  links: Readonly<Record<string, string>> = {},
): AppPackageJson {
  const range = (name: string): string => {
    const found = links[name] ?? versions[name];
    if (found === undefined) {
      throw new ScaffoldError("TEMPLATES_MISSING", {
        message: `The templates index has no version for ${name}.`,
      });
    }
    return found;
  };
  const sorted = (record: Record<string, string>): Record<string, string> =>
    Object.fromEntries(Object.entries(record).sort(([a], [b]) => a.localeCompare(b)));
  const { start: _start, dev: _dev, build: _build, ...scripts } = base.scripts;
  return {
    ...base,
    scripts: {
      build: EDGE_BUILD,
      dev: `${EDGE_BUILD} && node ${EDGE_DEV_FILE}`,
      ...scripts,
    },
    dependencies: sorted({
      ...base.dependencies,
      ...Object.fromEntries(
        Object.keys(EDGE_APP_PACKAGE.dependencies).map((name) => [name, range(name)]),
      ),
    }),
    devDependencies: sorted({
      ...base.devDependencies,
      ...Object.fromEntries(
        Object.keys(EDGE_APP_PACKAGE.devDependencies).map((name) => [name, range(name)]),
      ),
    }),
  };
}

/** The `.gitignore` of an edge app: the build's bundle and scratch files, not its migrations. */
export function createEdgeGitignore(): string {
  return ["node_modules/", ".svc/", "edge/worker.js", "edge/.svc-edge/", ".wrangler/", ""].join(
    "\n",
  );
}

/**
 * The README of an edge app: build, run locally, call, deploy, and what the
 * edge does not serve. Commands in npm's form, or pnpm's for an app on a
 * checkout (its `link:` dependencies install only with pnpm).
 */
export function createEdgeReadme(input: AppReadmeInput): string {
  const pnpm = input.checkout !== undefined;
  const install = pnpm ? "pnpm install" : "npm install";
  const run = (script: string): string =>
    pnpm ? `pnpm ${script}` : script === "test" ? "npm test" : `npm run ${script}`;
  const query = input.functions.find((fn) => fn.type === "query" && fn.takesEmptyArgs === true);
  const call =
    query === undefined
      ? ""
      : `
Call a function with a session (in dev mode the magic code comes back in the answer):

\`\`\`sh
curl -s -X POST localhost:8787/api/auth/guest
curl -s -X POST localhost:8787/api/fn/${query.name} -H 'content-type: application/json' \\
  -H "authorization: Bearer <token from above>" -d '{}'
\`\`\`
`;
  return `# ${input.name}

An [svc](https://www.npmjs.com/package/@svc/server) app built as a Cloudflare
Worker on D1 (experimental), from the \`${input.template.name}\` template:
${input.template.description}

Entities: ${input.entities.map((entity) => `\`${entity}\``).join(", ") || "none"}.
Functions (\`${input.functionsDir}/\`): ${input.functions.map((fn) => `\`${fn.name}\``).join(", ") || "none"}.

## Build and run locally

\`\`\`sh
${install}
${run("build")}     # ${EDGE_BUILD}: edge/worker.js, edge/migrations/, edge/wrangler.jsonc
${run("dev")}       # builds, then serves the Worker on http://127.0.0.1:8787
\`\`\`
${
  pnpm
    ? `
This app depends on a checkout of the svc repository through \`link:\`
paths, which only pnpm installs.
`
    : ""
}
\`dev\` runs \`${EDGE_DEV_FILE}\`: the Worker in workerd (through miniflare,
no Cloudflare account or network needed) on a local D1 database in
\`.svc/edge-d1\`, with the migrations in \`edge/migrations\` applied, in dev
mode, and an admin token in \`.svc/edge-admin-token\`. \`PORT=9000 ${run("dev")}\`
picks another port.
${call}
Build again after changing \`svc.json\` or the functions: a changed schema
gets the next migration file (\`edge/migrations/0002_svc.sql\`, ...). Commit
\`edge/migrations/\` and \`edge/wrangler.jsonc\`; the bundle is ignored.
\`${run("test")}\` runs the access tests in \`policies.test.json\`.

## Deploy

\`\`\`sh
${run("build")}
cd edge
npx wrangler d1 create ${input.name}          # put the id into wrangler.jsonc
npx wrangler d1 migrations apply ${input.name} --remote
npx wrangler secret put SVC_ADMIN_TOKEN       # 32+ characters
npx wrangler deploy
\`\`\`

## What the edge does not serve

Live sync, rooms, jobs, files, studio, billing, OAuth and \`/metrics\`
answer 501 \`NOT_AVAILABLE_ON_EDGE\`. For those, run the same app on the
svc server (\`npx svc-server\` beside \`svc.json\`). See the svc docs page
\`deployment/edge-and-managed\`.
`;
}
