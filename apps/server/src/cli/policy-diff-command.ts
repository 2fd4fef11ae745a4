import { compilePolicies } from "@svc/policy-engine";
import { diffPolicies, formatPolicyDiff } from "@svc/policy-engine/analysis";
import { type CliCommand, parseCommandLine } from "./cli-command.js";
import { readManifestSource } from "./manifest-source.js";
import { parseBound } from "./policy-options.js";
import { PolicyUsageError } from "./policy-usage.js";

/**
 * `svc policy diff <old> <new>`: per entity and action, widened, narrowed
 * or the same, each change with a witness. Exit 1 when access widened
 * (unless `--allow-widening`).
 */
export const runPolicyDiff: CliCommand = async (argv, io, _env) => {
  const { values, positionals } = parseCommandLine(argv, {
    "allow-widening": { type: "boolean", default: false },
    bound: { type: "string" },
    json: { type: "boolean", default: false },
  });
  const [before, after, extra] = positionals;
  if (before === undefined || after === undefined || extra !== undefined) {
    throw new PolicyUsageError("expected: svc policy diff <old> <new>");
  }
  const bound = parseBound(values.bound);
  const [old, next] = await Promise.all([readManifestSource(before), readManifestSource(after)]);
  const diff = diffPolicies(compilePolicies(old.manifest), compilePolicies(next.manifest), {
    ...(bound !== undefined && { bound }),
  });
  io.stdout(
    values.json
      ? `${JSON.stringify({ old: old.label, new: next.label, ...diff }, null, 2)}\n`
      : formatPolicyDiff(diff),
  );
  return diff.widened && !values["allow-widening"] ? 1 : 0;
};
