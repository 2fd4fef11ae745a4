/** One server function of a generated app. */
export interface AppFunction {
  readonly name: string;
  /** `query`, `mutation`, `action` or `hook`, as the file's source shows; undefined when unclear. */
  readonly type: "query" | "mutation" | "action" | "hook" | undefined;
  /** Whether `{}` is a valid call, as far as the source shows; default false. */
  readonly takesEmptyArgs?: boolean;
}

/** What the generated README describes. */
export interface AppReadmeInput {
  /** The package name of the app. */
  readonly name: string;
  /**
   * The template it was made from; `build` is its web build, when it has a
   * front end, `codegen` the script that writes the page's `Api` type, and
   * `seed` the one that loads its sample rows.
   */
  readonly template: {
    readonly name: string;
    readonly description: string;
    readonly build?: string | undefined;
    readonly codegen?: string | undefined;
    /** The script that loads `seed/` into the running app (`svc seed`), when there is one. */
    readonly seed?: string | undefined;
  };
  /** Entity names declared in `svc.json`. */
  readonly entities: readonly string[];
  /** The server functions: file name without extension, and kind when it could be read. */
  readonly functions: readonly AppFunction[];
  /** The functions directory, relative to the app (`functions`). */
  readonly functionsDir: string;
  /** The template's other top-level directories (`web`, `public`, `seed`); default none. */
  readonly directories?: readonly string[];
  /**
   * The app depends on a checkout of the svc repository through `link:` and
   * `file:` paths (`create-svc --from-checkout`, `pnpm create-app`), which
   * only pnpm installs: the README's commands are pnpm's and it says why.
   * `pnpm` is the checkout's pnpm version (`11.28.11`, from its
   * `packageManager`), for the `npx` form. Default: an app on the
   * registry's packages, whose README speaks npm (and names pnpm's form).
   */
  readonly checkout?: { readonly pnpm?: string | undefined } | undefined;
}

/** How the README spells its commands. */
interface Commands {
  readonly install: string;
  /** `npm run build`, `npm start`, `pnpm build`, … */
  run(script: string): string;
}

const NPM: Commands = {
  install: "npm install",
  run: (script) =>
    script === "start" || script === "test" ? `npm ${script}` : `npm run ${script}`,
};

const PNPM: Commands = {
  install: "pnpm install",
  run: (script) => `pnpm ${script}`,
};

function commandsOf(input: AppReadmeInput): Commands {
  return input.checkout === undefined ? NPM : PNPM;
}

/** What the README says about a directory a template may bring besides its functions. */
function directoryNote(directory: string, input: AppReadmeInput): string | undefined {
  const commands = commandsOf(input);
  switch (directory) {
    case "web":
      return `the React front end; \`${commands.run("build")}\` bundles \`web/main.tsx\` with esbuild into \`public/app.js\``;
    case "public":
      return "the page svc serves at `/` beside the API: `index.html`, styles, and the built `app.js` (git-ignored)";
    case "seed":
      return input.template.seed === undefined
        ? "sample rows to load with the admin token (`POST /api/batch`)"
        : `sample rows, each file a batch as \`POST /api/batch\` takes it: \`${commands.run("seed")}\` loads them into the running app`;
    default:
      return undefined;
  }
}

function code(name: string): string {
  return `\`${name}\``;
}

function list(items: readonly string[]): string {
  return items.length === 0 ? "none yet" : items.join(", ");
}

function describeFunction(fn: AppFunction): string {
  return fn.type === undefined ? code(fn.name) : `${code(fn.name)} (${fn.type})`;
}

function directoryRows(input: AppReadmeInput): string {
  return (input.directories ?? [])
    .filter((directory) => directory !== input.functionsDir)
    .map((directory) => {
      const note = directoryNote(directory, input) ?? "part of the template";
      return `| \`${directory}/\` | ${note} |\n`;
    })
    .join("");
}

function codegenNote(input: AppReadmeInput): string {
  if (input.template.codegen === undefined) return "";
  return ` Then run
\`${commandsOf(input).run("codegen")}\` (\`${input.template.codegen}\`): it rewrites the \`Api\` type the
page's hooks and client calls are checked against.`;
}

/** Which package manager the commands need, and why; with npm, the other managers' form. */
function managerNote(input: AppReadmeInput): string {
  if (input.checkout === undefined) {
    return `With pnpm the same is \`pnpm install\` and \`pnpm dev\` (yarn and bun work too);
this README writes npm's form of each command.`;
  }
  const npx = `npx --yes pnpm${input.checkout.pnpm === undefined ? "" : `@${input.checkout.pnpm}`}`;
  return `This app was made from a checkout of the svc repository (\`pnpm create-app\`):
its \`@svc/*\` dependencies are \`link:\` and \`file:\` paths into that checkout,
which only pnpm installs (npm stops with \`EUNSUPPORTEDPROTOCOL\`), so every
command here is pnpm's. Without pnpm, write \`${npx}\` where it
says \`pnpm\`. An app made with \`npm create svc\` depends on the registry's
releases and installs with npm, pnpm, yarn or bun.`;
}

function runSection(input: AppReadmeInput): string {
  const commands = commandsOf(input);
  const dev = commands.run("dev");
  if (input.template.build === undefined) {
    return `\`${dev}\` serves the app in dev mode at http://localhost:4321 on an
embedded SQLite file under \`.svc/\`.`;
  }
  return `\`${dev}\` builds the front end (\`${commands.run("build")}\`), then serves the app in
dev mode on an embedded SQLite file under \`.svc/\`: open http://localhost:4321
for the page; the API is at the same address. After changing \`web/\`, run
\`${commands.run("build")}\` and reload the page (the server keeps running).`;
}

/** The step that fills a template that starts empty, when it has sample rows. */
function seedSection(input: AppReadmeInput): string {
  if (input.template.seed === undefined) return "";
  return `
The app starts with no data. With the server running, load the sample rows
in \`seed/\` from a second terminal (\`${input.template.seed}\` posts them with the
dev admin token; a second run skips what is already there):

\`\`\`sh
${commandsOf(input).run("seed")}
\`\`\`
`;
}

/**
 * A first call with the admin token that works: a query taking `{}`, else
 * the rows of an entity (the admin token reads past the policies), else a
 * placeholder.
 */
function exampleCall(input: AppReadmeInput): string {
  const query = input.functions.find((fn) => fn.type === "query" && fn.takesEmptyArgs === true);
  const entity = input.entities.find((name) => name !== "User") ?? input.entities[0];
  if (query === undefined && entity !== undefined) {
    return `curl -s localhost:4321/api/entities/${entity} -H "Authorization: Bearer $TOKEN"`;
  }
  return `curl -s -X POST localhost:4321/api/fn/${query?.name ?? "<name>"} \\
  -H "Authorization: Bearer $TOKEN" -H "content-type: application/json" -d '{}'`;
}

function functionsNote(input: AppReadmeInput): string {
  const hooks = input.functions.some((fn) => fn.type === "hook");
  return hooks
    ? "each query, mutation and action answers `POST /api/fn/<name>`; a hook runs inside the write it is declared on"
    : "each answers `POST /api/fn/<name>`";
}

/** The README.md of a generated app: how to run it, call it and deploy it. */
export function createAppReadme(input: AppReadmeInput): string {
  const hasBuild = input.template.build !== undefined;
  const c = commandsOf(input);
  return `# ${input.name}

An [svc](https://www.npmjs.com/package/@svc/server) app, created by
\`create-svc\` from the \`${input.template.name}\` template. ${input.template.description}

## Run it

\`\`\`sh
${c.install}
${c.run("dev")}
\`\`\`

${managerNote(input)}

${runSection(input)}

The server takes four ports, 4321 to 4324. With another svc app running,
give this one the next block, \`SVC_PORT=4325 ${c.run("dev")}\`, and the same
\`SVC_PORT\` to the commands that call it.
${seedSection(input)}
In dev mode the server makes an admin token once and keeps it in
\`.svc/admin-token\`; use it as a bearer token (it passes every policy):

\`\`\`sh
TOKEN=$(cat .svc/admin-token)
curl -s localhost:4321/health
${exampleCall(input)}
\`\`\`

The \`dev\` script sets \`SVC_DEV_MODE=true\` the POSIX way, which works on
macOS, Linux, WSL and Git Bash. In Windows PowerShell run
${hasBuild ? `\`${c.run("build")}\` and then ` : ""}\`$env:SVC_DEV_MODE="true"; ${c.run("start")}\` instead (cmd: \`set "SVC_DEV_MODE=true" && ${c.run("start")}\`).

## What is here

| file | what it is |
| --- | --- |
| \`svc.json\` | the manifest: entities (${list(input.entities.map(code))}), their fields and indexes, row policies and trusted origins |
| \`${input.functionsDir}/\` | server functions, one per file, the file name is the function name: ${list(input.functions.map(describeFunction))}; ${functionsNote(input)} |
| \`policies.test.json\` | access tests: which callers may read, insert, update and delete which rows; \`${c.run("test")}\` runs them through the policies and their SQL (\`svc policy test\`) |
${directoryRows(input)}| \`tsconfig.json\` | type-checking${hasBuild ? " for the functions and the front end" : " for the functions"}: \`${c.run("typecheck")}\` |

Change \`svc.json\` and restart: the server adds new tables and columns
itself. Add a function by adding a file to \`${input.functionsDir}/\`.${codegenNote(input)}

## Production

${hasBuild ? `Build the front end once per release (\`${c.run("build")}\`), then ` : ""}\`${c.run("start")}\` runs \`svc-server\`, configured only by environment variables:
\`SVC_ADMIN_TOKEN\` (required, at least 64 characters), \`SVC_PORT\` (default
4321), \`SVC_MANIFEST\` (default \`svc.json\`), \`SVC_DB_PATH\` (default
\`.svc/data.db\`) or \`DATABASE_URL\` for Postgres, and an email transport
(\`SVC_EMAIL_PROVIDER\`, \`SVC_EMAIL_API_KEY\`, \`SVC_EMAIL_FROM\`), without which
sign-in codes and links answer 500 \`EMAIL_SEND_FAILED\`. Outside dev mode the
manifest must list the browser origins of your front end in
\`auth.trustedOrigins\`. Invalid or missing settings stop the boot with one
line each naming the variable.

\`\`\`sh
${hasBuild ? `${c.run("build")}\n` : ""}SVC_ADMIN_TOKEN=$(openssl rand -hex 64) ${c.run("start")}
\`\`\`
`;
}
