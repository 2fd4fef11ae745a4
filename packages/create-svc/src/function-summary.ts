/** What the generated README says about one server function, read from its source. */
export interface FunctionSummary {
  /** Its kind; undefined when the source does not show it plainly. */
  readonly type: "query" | "mutation" | "action" | "hook" | undefined;
  /**
   * Whether `{}` is a valid call: no `args`, or every argument optional or
   * defaulted, as far as the source shows it (false when unsure).
   */
  readonly takesEmptyArgs: boolean;
}

const DEFAULT_EXPORT = /\bexport\s+default\s+(query|mutation|action|hook)\s*[<(]/;
const ANY_DEFINITION = /\b(query|mutation|action)\s*\(/;

/** The text between the `{` at `open` and its matching `}`; undefined when unbalanced. */
function braceBlock(source: string, open: number): string | undefined {
  let depth = 0;
  for (let index = open; index < source.length; index++) {
    const char = source[index];
    if (char === "{") depth++;
    else if (char === "}" && --depth === 0) return source.slice(open + 1, index);
  }
  return undefined;
}

function argumentsAreOptional(source: string): boolean {
  const args = /\bargs\s*:\s*(?:z\.object\(\s*)?\{/.exec(source);
  if (args === null) return !/\bargs\s*:/.test(source);
  const block = braceBlock(source, args.index + args[0].length - 1);
  if (block === undefined) return false;
  // One entry per `name: z…` line start; each runs to the next entry.
  const starts = [...block.matchAll(/^\s*["']?\w+["']?\s*:/gm)].map((match) => match.index);
  return starts.every((start, index) => {
    const entry = block.slice(start, starts[index + 1] ?? block.length);
    return /\.optional\(\)|\.default\(/.test(entry);
  });
}

/**
 * Reads a function file's kind and whether it takes `{}`, without running
 * it: the kind of its default export (`export default query(…)`), else the
 * first `query(`/`mutation(`/`action(` call; a naive look at its `args`.
 *
 * @example
 * summarizeFunction('export default query({ handler: () => 1 });');
 * // { type: "query", takesEmptyArgs: true }
 */
export function summarizeFunction(source: string): FunctionSummary {
  const kind = (DEFAULT_EXPORT.exec(source) ?? ANY_DEFINITION.exec(source))?.[1];
  const type =
    kind === "query" || kind === "mutation" || kind === "action" || kind === "hook"
      ? kind
      : undefined;
  return { type, takesEmptyArgs: argumentsAreOptional(source) };
}
