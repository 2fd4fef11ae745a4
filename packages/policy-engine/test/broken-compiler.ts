import type { KyselyPlugin, RootOperationNode } from "kysely";

/** Rewrites every `=` the policies compile to (a raw `=` fragment) into `<>`. */
function flipEquals(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(flipEquals);
  if (typeof node !== "object" || node === null) return node;
  const fields = node as Record<string, unknown>;
  const fragments = fields.sqlFragments;
  if (fields.kind === "RawNode" && Array.isArray(fragments) && fragments.join("") === "=") {
    return { ...fields, sqlFragments: ["<>"] };
  }
  return Object.fromEntries(Object.entries(fields).map(([key, value]) => [key, flipEquals(value)]));
}

/** A compiler bug on purpose, as a kysely plugin: the SQL of `==` tests inequality. */
export const brokenCompiler: KyselyPlugin = {
  transformQuery: (args) => flipEquals(args.node) as RootOperationNode,
  transformResult: async (args) => args.result,
};
