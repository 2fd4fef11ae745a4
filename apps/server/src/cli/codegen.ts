import { readdir, writeFile } from "node:fs/promises";
import { dirname, join, relative, resolve, sep } from "node:path";
import { functionFileNames } from "@svc/functions";
import { ConfigError } from "../config.js";
import { loadManifestFile } from "../manifest-file.js";
import { type CliCommand, parseCommandLine } from "./cli-command.js";
import { type FunctionFileRef, generateApiTypes } from "./generate-api.js";

/** The usage of `svc codegen`, printed on `--help` and after a usage error. */
export const CODEGEN_USAGE = `Usage: svc codegen [options]

Writes the app's \`Api\` type for createClient<Api>() from @svc/client:
entities from the manifest, functions typed from their files (imported with
\`import type\`, never run). Run it again after changing the manifest or
adding, renaming or removing a function file.

Options:
  --manifest <path>    the manifest (default: $SVC_MANIFEST or svc.json)
  --out <path>         the file to write, .d.ts or .ts (default: svc-api.d.ts
                       beside the manifest)
`;

/** A usage mistake: the CLI prints it with the usage and exits 2. */
export class CodegenUsageError extends Error {}

// The import a function file gets in the generated file: the compiled name
// of a TypeScript file.
const IMPORT_EXTENSIONS: Readonly<Record<string, string>> = {
  ".ts": ".js",
  ".mts": ".mjs",
  ".js": ".js",
  ".mjs": ".mjs",
};

/** `./functions/createTodo.js` from the generated file's directory, with `/` on every OS. */
function importSpecifier(fromDir: string, file: string): string {
  const path = relative(fromDir, file).split(sep).join("/");
  return path.startsWith("../") ? path : `./${path}`;
}

/**
 * The function files of a functions directory, without importing them. A
 * missing directory has none; a bad name or a name defined twice is a
 * `ConfigError` on the manifest's `functions` setting, as the server would
 * refuse to boot on it.
 */
async function listFunctionFiles(dir: string, outDir: string): Promise<FunctionFileRef[]> {
  let entries: string[];
  try {
    entries = (await readdir(dir, { withFileTypes: true }))
      .filter((entry) => entry.isFile() || entry.isSymbolicLink())
      .map((entry) => entry.name)
      .sort();
  } catch (error) {
    if ((error as { code?: unknown }).code === "ENOENT") return [];
    throw new ConfigError("functions", `cannot read the functions directory ${dir}`);
  }
  // Which files are functions: the loader's own rules (@svc/functions).
  const { files, problem } = functionFileNames(entries);
  if (problem?.kind === "invalid-name") {
    throw new ConfigError(
      "functions",
      `${problem.entry} has no valid function name: use letters, digits and _ only, starting with a letter`,
    );
  }
  if (problem?.kind === "duplicate") {
    throw new ConfigError(
      "functions",
      `${problem.other} and ${problem.entry} both define function ${problem.name}`,
    );
  }
  return files.map((file) => ({
    name: file.name,
    specifier: importSpecifier(
      outDir,
      join(dir, `${file.name}${IMPORT_EXTENSIONS[file.extension]}`),
    ),
    typescript: file.typescript,
  }));
}

/**
 * `svc codegen`: reads the manifest, lists its function files and writes the
 * `Api` type. Returns the exit code (0 written); usage mistakes throw
 * `CodegenUsageError`, manifest and file problems `ConfigError`.
 */
export const runCodegen: CliCommand = async (argv, io, env) => {
  let values: { manifest?: string; out?: string; help?: boolean };
  let positionals: string[];
  try {
    ({ values, positionals } = parseCommandLine(argv, {
      manifest: { type: "string" },
      out: { type: "string" },
      help: { type: "boolean", short: "h", default: false },
    }));
  } catch (error) {
    throw new CodegenUsageError((error as Error).message);
  }
  if (values.help) {
    io.stdout(CODEGEN_USAGE);
    return 0;
  }
  if (positionals.length > 0) {
    throw new CodegenUsageError(`unexpected argument ${positionals[0]}`);
  }
  const manifestPath = resolve(values.manifest ?? env.SVC_MANIFEST ?? "svc.json");
  const outPath = resolve(values.out ?? join(dirname(manifestPath), "svc-api.d.ts"));
  if (!/\.(d\.)?[mc]?ts$/.test(outPath)) {
    throw new CodegenUsageError("--out must name a .ts or .d.ts file");
  }
  const manifest = await loadManifestFile(manifestPath);
  const outDir = dirname(outPath);
  const functionsDir = join(dirname(manifestPath), manifest.functions);
  const functions = await listFunctionFiles(functionsDir, outDir);
  const text = generateApiTypes({
    manifest,
    functions,
    manifestLabel: importSpecifier(outDir, manifestPath),
  });
  try {
    await writeFile(outPath, text);
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    throw new ConfigError(
      "--out",
      `cannot write ${outPath}${typeof code === "string" ? ` (${code})` : ""}`,
    );
  }
  io.stdout(
    `svc: wrote ${relative(process.cwd(), outPath) || outPath} (${manifest.entities.length} entities, ${functions.length} function files)\n`,
  );
  return 0;
};
