// Which files of a functions directory define functions, and under which
// names. The loader, `svc codegen` and the edge build all read a directory
// this way, so a file one of them accepts the others accept too; each says
// what is wrong in its own words (and error type).

const EXTENSIONS: readonly string[] = [".ts", ".mts", ".js", ".mjs"];
const TYPESCRIPT: readonly string[] = [".ts", ".mts"];
const FUNCTION_NAME = /^[A-Za-z][A-Za-z0-9_]*$/;

/** A file that defines a function: the function is named after the file. */
export interface FunctionFileName {
  /** The function's name: the file name without its extension. */
  readonly name: string;
  /** The file name as listed in the directory. */
  readonly entry: string;
  /** `.ts`, `.mts`, `.js` or `.mjs`. */
  readonly extension: string;
  readonly typescript: boolean;
}

/** Why a directory's files cannot all be functions: the first problem, in file name order. */
export type FunctionFileNameProblem =
  | { readonly kind: "invalid-name"; readonly entry: string }
  | {
      readonly kind: "duplicate";
      readonly name: string;
      /** The file listed first. */
      readonly other: string;
      readonly entry: string;
    };

/**
 * Picks the function files out of a directory's file names, in name order.
 * Skipped: other extensions, names starting with `_` or `.`, declaration
 * files and `*.test.*`. A name that is no identifier (letters, digits, `_`,
 * a letter first), or two files of one name (`a.ts`, `a.js`), is a problem.
 *
 * @example
 * functionFileNames(["b.ts", "_util.ts", "a.mjs"]).files.map((f) => f.name); // ["a", "b"]
 */
export function functionFileNames(entries: readonly string[]): {
  files: FunctionFileName[];
  problem?: FunctionFileNameProblem;
} {
  const files: FunctionFileName[] = [];
  const seen = new Map<string, string>();
  for (const entry of [...entries].sort()) {
    // The text from the last dot, as node:path's extname (kept out of this module).
    const extension = entry.slice(entry.lastIndexOf("."));
    if (!EXTENSIONS.includes(extension) || isIgnored(entry)) continue;
    const name = entry.slice(0, -extension.length);
    if (!FUNCTION_NAME.test(name)) return { files, problem: { kind: "invalid-name", entry } };
    const other = seen.get(name);
    if (other !== undefined) {
      return { files, problem: { kind: "duplicate", name, other, entry } };
    }
    seen.set(name, entry);
    files.push({ name, entry, extension, typescript: TYPESCRIPT.includes(extension) });
  }
  return { files };
}

function isIgnored(entry: string): boolean {
  return (
    entry.startsWith("_") ||
    entry.startsWith(".") ||
    /\.d\.m?ts$/.test(entry) ||
    /\.test\.[^.]+$/.test(entry)
  );
}
