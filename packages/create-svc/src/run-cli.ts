import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { ScaffoldError } from "./errors.js";
import { DEFAULT_TEMPLATE, scaffold } from "./scaffold.js";
import { listTemplates, type TemplateInfo } from "./templates.js";

/** Where `runCli` writes; the bin passes `process.stdout` and `process.stderr`. */
export interface CliIO {
  stdout(text: string): void;
  stderr(text: string): void;
}

/** What `runCli` may be told besides its arguments. */
export interface CliOptions {
  /** A directory of built templates; default the ones shipped with create-svc. */
  readonly templatesDir?: string;
  /**
   * The `npm_config_user_agent` of the package manager that ran the command,
   * which picks the commands printed as next steps; default npm's.
   */
  readonly userAgent?: string;
  /** Where a relative `<dir>` is resolved from. Default the process's working directory. */
  readonly cwd?: string;
}

function formatTemplates(templates: readonly TemplateInfo[]): string {
  const width = Math.max(0, ...templates.map((template) => template.name.length));
  return templates
    .map((template) => `  ${template.name.padEnd(width)}  ${template.description}`)
    .join("\n");
}

async function tryListTemplates(templatesDir: string | undefined): Promise<string> {
  try {
    return formatTemplates(await listTemplates(templatesDir));
  } catch {
    return "  (none found: this copy of create-svc is not built)";
  }
}

async function usage(templatesDir: string | undefined): Promise<string> {
  return `Usage: create-svc <dir> [--template <name>] [--edge] [--from-checkout <path>]

Creates a new svc app in <dir>, which must not exist or must be empty. The
directory's name becomes the app's package name.

Options:
  -t, --template <name>       the starter template (default: ${DEFAULT_TEMPLATE})
      --edge                  an edge app (experimental): build is svc build --target
                              edge (a Cloudflare Worker on D1), dev serves it locally
      --from-checkout <path>  depend on a built checkout of the svc repository
                              (link:/file: paths, install with pnpm) instead of npm
  -h, --help                  show this help

Templates:
${await tryListTemplates(templatesDir)}

Example:
  npm create svc@latest my-app -- --template todo
`;
}

function packageManagerCommands(userAgent: string | undefined): { install: string; dev: string } {
  const manager = userAgent?.split("/")[0];
  if (manager === "pnpm") return { install: "pnpm install", dev: "pnpm dev" };
  if (manager === "yarn") return { install: "yarn", dev: "yarn dev" };
  if (manager === "bun") return { install: "bun install", dev: "bun run dev" };
  return { install: "npm install", dev: "npm run dev" };
}

function shellQuote(path: string): string {
  return /^[\w./~-]+$/.test(path) ? path : `'${path.replaceAll("'", "'\\''")}'`;
}

/** The command line: `<dir>`, `--template <name>` (`-t`), `--help` (`-h`); throws on anything else. */
function parseCliArgs(argv: readonly string[]) {
  return parseArgs({
    args: [...argv],
    allowPositionals: true,
    strict: true,
    options: {
      template: { type: "string", short: "t" },
      "from-checkout": { type: "string" },
      edge: { type: "boolean" },
      help: { type: "boolean", short: "h" },
    },
  });
}

/**
 * The `create-svc` command without the process around it: parses `argv`
 * (`<dir> [--template <name>] [--help]`), scaffolds the app and prints the
 * files and next steps. Resolves to the exit code: 0 on success or `--help`,
 * 1 on a usage mistake or a `ScaffoldError` (an unknown template also lists
 * the available ones).
 *
 * @example
 * ```ts
 * const code = await runCli(["my-app", "--template", "todo"], {
 *   stdout: (text) => process.stdout.write(text),
 *   stderr: (text) => process.stderr.write(text),
 * });
 * ```
 */
export async function runCli(
  argv: readonly string[],
  io: CliIO,
  options: CliOptions = {},
): Promise<number> {
  let parsed: ReturnType<typeof parseCliArgs>;
  try {
    parsed = parseCliArgs(argv);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    io.stderr(`create-svc: ${message}\n\n${await usage(options.templatesDir)}`);
    return 1;
  }
  if (parsed.values.help === true) {
    io.stdout(await usage(options.templatesDir));
    return 0;
  }
  const [dir, ...extra] = parsed.positionals;
  if (dir === undefined || extra.length > 0) {
    const problem =
      dir === undefined ? "missing <dir>" : `unexpected arguments: ${extra.join(" ")}`;
    io.stderr(`create-svc: ${problem}\n\n${await usage(options.templatesDir)}`);
    return 1;
  }

  try {
    const checkout = parsed.values["from-checkout"];
    const result = await scaffold({
      targetDir: resolve(options.cwd ?? process.cwd(), dir),
      ...(checkout !== undefined && { checkout: resolve(options.cwd ?? process.cwd(), checkout) }),
      template: parsed.values.template ?? DEFAULT_TEMPLATE,
      ...(parsed.values.edge === true && { edge: true }),
      ...(options.templatesDir !== undefined && { templatesDir: options.templatesDir }),
    });
    // link: and file: dependencies are pnpm's; the app is a pnpm workspace root of its own.
    const commands =
      checkout === undefined
        ? packageManagerCommands(options.userAgent)
        : { install: "pnpm install", dev: "pnpm dev" };
    const steps = [
      ...(dir === "." ? [] : [`cd ${shellQuote(dir)}`]),
      commands.install,
      commands.dev,
    ];
    io.stdout(
      `Created ${result.name} from the "${result.template}" template in ${result.targetDir}:\n` +
        `${result.files.map((file) => `  ${file}`).join("\n")}\n\n` +
        `Next steps:\n${steps.map((step) => `  ${step}`).join("\n")}\n`,
    );
    return 0;
  } catch (error) {
    if (!(error instanceof ScaffoldError)) throw error;
    io.stderr(`create-svc: ${error.message}\n`);
    if (error.code === "UNKNOWN_TEMPLATE") {
      io.stderr(`\nTemplates:\n${await tryListTemplates(options.templatesDir)}\n`);
    }
    return 1;
  }
}
