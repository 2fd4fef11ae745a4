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
   * front end, and `codegen` the script that writes the page's `Api` type.
   */
  readonly template: {
    readonly name: string;
    readonly description: string;
    readonly build?: string | undefined;
    readonly codegen?: string | undefined;
  };
  /** Entity names declared in `svc.json`. */
  readonly entities: readonly string[];
  /** The server functions: file name without extension, and kind when it could be read. */
  readonly functions: readonly AppFunction[];
  /** The functions directory, relative to the app (`functions`). */
  readonly functionsDir: string;
  /** The template's other top-level directories (`web`, `public`, `seed`); default none. */
  readonly directories?: readonly string[];
}

/** What the README says about a directory a template may bring besides its functions. */
const DIRECTORY_NOTES: Readonly<Record<string, string>> = {
  web: "the React front end; `npm run build` bundles `web/main.tsx` with esbuild into `public/app.js`",
  public:
    "the page svc serves at `/` beside the API: `index.html`, styles, and the built `app.js` (git-ignored)",
  seed: "sample rows to load with the admin token (`POST /api/batch`)",
};

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
      const note = DIRECTORY_NOTES[directory] ?? "part of the template";
      return `| \`${directory}/\` | ${note} |\n`;
    })
    .join("");
}

function codegenNote(input: AppReadmeInput): string {
  if (input.template.codegen === undefined) return "";
  return ` Then run
\`npm run codegen\` (\`${input.template.codegen}\`): it rewrites the \`Api\` type the
page's hooks and client calls are checked against.`;
}

function runSection(input: AppReadmeInput): string {
  if (input.template.build === undefined) {
    return `\`npm run dev\` serves the app in dev mode at http://localhost:4321 on an
embedded SQLite file under \`.svc/\`.`;
  }
  return `\`npm run dev\` builds the front end (\`npm run build\`), then serves the app in
dev mode on an embedded SQLite file under \`.svc/\`: open http://localhost:4321
for the page; the API is at the same address. After changing \`web/\`, run
\`npm run build\` and reload the page (the server keeps running).`;
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
  return `# ${input.name}

An [svc](https://www.npmjs.com/package/@svc/server) app, created by
\`create-svc\` from the \`${input.template.name}\` template. ${input.template.description}

## Run it

\`\`\`sh
npm install
npm run dev
\`\`\`

${runSection(input)}

In dev mode the server makes an admin token once and keeps it in
\`.svc/admin-token\`; use it as a bearer token (it passes every policy):

\`\`\`sh
TOKEN=$(cat .svc/admin-token)
curl -s localhost:4321/health
${exampleCall(input)}
\`\`\`

The \`dev\` script sets \`SVC_DEV_MODE=true\` the POSIX way, which works on
macOS, Linux, WSL and Git Bash. In Windows PowerShell run
${hasBuild ? "`npm run build` and then " : ""}\`$env:SVC_DEV_MODE="true"; npm start\` instead (cmd: \`set "SVC_DEV_MODE=true" && npm start\`).

## What is here

| file | what it is |
| --- | --- |
| \`svc.json\` | the manifest: entities (${list(input.entities.map(code))}), their fields and indexes, row policies and trusted origins |
| \`${input.functionsDir}/\` | server functions, one per file, the file name is the function name: ${list(input.functions.map(describeFunction))}; ${functionsNote(input)} |
| \`policies.test.json\` | access tests: which callers may read, insert, update and delete which rows; \`npm test\` runs them through the policies and their SQL (\`svc policy test\`) |
${directoryRows(input)}| \`tsconfig.json\` | type-checking${hasBuild ? " for the functions and the front end" : " for the functions"}: \`npm run typecheck\` |

Change \`svc.json\` and restart: the server adds new tables and columns
itself. Add a function by adding a file to \`${input.functionsDir}/\`.${codegenNote(input)}

## Production

${hasBuild ? "Build the front end once per release (`npm run build`), then " : ""}\`npm start\` runs \`svc-server\`, configured only by environment variables:
\`SVC_ADMIN_TOKEN\` (required, at least 64 characters), \`SVC_PORT\` (default
4321), \`SVC_MANIFEST\` (default \`svc.json\`), \`SVC_DB_PATH\` (default
\`.svc/data.db\`) or \`DATABASE_URL\` for Postgres. Outside dev mode the
manifest must list the browser origins of your front end in
\`auth.trustedOrigins\`. An invalid setting stops the boot with one line
naming the variable.

\`\`\`sh
${hasBuild ? "npm run build\n" : ""}SVC_ADMIN_TOKEN=$(openssl rand -hex 64) npm start
\`\`\`
`;
}
