import { readdir } from "node:fs/promises";
import { basename, join } from "node:path";
import { pathToFileURL } from "node:url";
import { tsImport } from "tsx/esm/api";
import { findDefinitionProblem } from "./check-definition.js";
import type { FunctionDefinition } from "./define-function.js";
import type { HookDefinition } from "./define-hook.js";
import type { RoomDefinition } from "./define-room.js";
import { FunctionsError } from "./errors.js";
import { functionFileNames } from "./function-files.js";
import type { FunctionRegistry } from "./function-registry.js";

/** A function file found in the directory. */
interface FunctionFile {
  readonly name: string;
  readonly path: string;
  /** How errors name it: `functions/createTodo.ts`. */
  readonly label: string;
  readonly typescript: boolean;
}

/**
 * Loads every function file directly in `dir` and returns them by name.
 *
 * Files: `*.ts`, `*.mts`, `*.js`, `*.mjs`, skipping `*.d.ts`, `*.test.*` and
 * names starting with `_` or `.` (helpers); subdirectories are not searched.
 * The file name without extension is the function name and must match
 * `/^[A-Za-z][A-Za-z0-9_]*$/`. TypeScript loads without a build step (tsx);
 * JavaScript through `import()`. The default export must be a query,
 * mutation, action, hook or room definition. A missing directory is an empty registry.
 *
 * Throws `FunctionsError` `FUNCTION_LOAD_FAILED` when a file fails to import
 * and `INVALID_FUNCTION` for a bad name, a name defined twice (`foo.ts` and
 * `foo.js`) or a default export that is not a definition; the message names
 * the file.
 *
 * @example
 * ```ts
 * const functions = await loadFunctions(join(appDir, "functions"));
 * const runner = createFunctionRunner({ store, functions });
 * ```
 */
export async function loadFunctions(dir: string): Promise<FunctionRegistry> {
  const files = await findFunctionFiles(dir);
  const registry = new Map<string, FunctionDefinition | HookDefinition | RoomDefinition>();
  if (files.length === 0) return registry;
  for (const file of files) {
    const url = pathToFileURL(file.path).href;
    let loaded: unknown;
    try {
      loaded = file.typescript ? await tsImport(url, import.meta.url) : await import(url);
    } catch (error) {
      throw new FunctionsError("FUNCTION_LOAD_FAILED", {
        message: `${file.label} failed to load: ${describeLoadError(error).replaceAll(file.path, file.label)}`,
        cause: error,
      });
    }
    const definition = defaultExport(loaded);
    const problem = findDefinitionProblem(definition);
    if (problem !== undefined) {
      throw new FunctionsError("INVALID_FUNCTION", {
        message: `${file.label} is not a function definition: ${problem}.`,
      });
    }
    registry.set(file.name, definition as FunctionDefinition | HookDefinition | RoomDefinition);
  }
  return registry;
}

async function findFunctionFiles(dir: string): Promise<FunctionFile[]> {
  let entries: string[];
  try {
    entries = (await readdir(dir, { withFileTypes: true }))
      .filter((entry) => entry.isFile() || entry.isSymbolicLink())
      .map((entry) => entry.name)
      .sort();
  } catch (error) {
    if (hasCode(error, "ENOENT")) return [];
    throw new FunctionsError("FUNCTION_LOAD_FAILED", {
      message: `The functions directory ${dir} cannot be read: ${describeLoadError(error)}`,
      cause: error,
    });
  }
  const folder = basename(dir);
  const { files, problem } = functionFileNames(entries);
  if (problem?.kind === "invalid-name") {
    throw new FunctionsError("INVALID_FUNCTION", {
      message: `${folder}/${problem.entry} has no valid function name: use letters, digits and _ only, starting with a letter.`,
    });
  }
  if (problem?.kind === "duplicate") {
    throw new FunctionsError("INVALID_FUNCTION", {
      message: `${folder}/${problem.other} and ${folder}/${problem.entry} both define function ${problem.name}; keep one.`,
    });
  }
  return files.map((file) => ({
    name: file.name,
    path: join(dir, file.entry),
    label: `${folder}/${file.entry}`,
    typescript: file.typescript,
  }));
}

/**
 * The module's default export. A TypeScript file outside a `"type": "module"`
 * package is compiled to CommonJS, whose `export default` arrives as
 * `default.default` beside an `__esModule` flag; that is unwrapped.
 */
function defaultExport(loaded: unknown): unknown {
  const value = readProperty(loaded, "default");
  if (readProperty(value, "__esModule") === true) return readProperty(value, "default");
  return value;
}

function readProperty(value: unknown, key: string): unknown {
  if ((typeof value !== "object" && typeof value !== "function") || value === null)
    return undefined;
  return (value as Record<string, unknown>)[key];
}

function hasCode(error: unknown, code: string): boolean {
  return typeof error === "object" && error !== null && (error as { code?: unknown }).code === code;
}

/** One line saying why a file failed, without the stack. */
function describeLoadError(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const lines = message
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "");
  const esbuild = lines.find((line) => line.includes("ERROR:"));
  const line = esbuild ?? lines[0] ?? "unknown error";
  return line.endsWith(".") ? line : `${line}.`;
}
