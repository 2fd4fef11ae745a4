import { compilePolicies } from "@svc/policy-engine";
import {
  adviseIndexes,
  formatLintFindings,
  type IndexMeasurement,
  type LintLevel,
  lintPolicies,
  measureIndex,
} from "@svc/policy-engine/analysis";
import { type CliCommand, parseCommandLine } from "./cli-command.js";
import { readManifestSource } from "./manifest-source.js";
import { parseBound } from "./policy-options.js";
import { PolicyUsageError } from "./policy-usage.js";
import { openProbeDatabases } from "./probe-databases.js";

const FAIL_ON = {
  error: ["error"],
  warning: ["error", "warning"],
  never: [],
} as const satisfies Record<string, readonly LintLevel[]>;

/**
 * `svc policy lint`: policy mistakes and missing indexes. Exit 1 when a
 * finding is at or above `--fail-on` (default `warning`). `--measure`
 * times each advised index on a seeded table (SQLite; Postgres too with
 * `--database-url`).
 */
export const runPolicyLint: CliCommand = async (argv, io, env) => {
  const { values, positionals } = parseCommandLine(argv, {
    manifest: { type: "string" },
    "fail-on": { type: "string", default: "warning" },
    bound: { type: "string" },
    measure: { type: "boolean", default: false },
    rows: { type: "string" },
    "database-url": { type: "string" },
    json: { type: "boolean", default: false },
  });
  if (positionals.length > 0) throw new PolicyUsageError(`unexpected argument ${positionals[0]}`);
  const failOn = values["fail-on"];
  if (failOn !== "error" && failOn !== "warning" && failOn !== "never") {
    throw new PolicyUsageError("--fail-on must be error, warning or never");
  }
  const rows = values.rows === undefined ? 20_000 : Number(values.rows);
  if (!Number.isSafeInteger(rows) || rows < 1 || rows > 200_000) {
    throw new PolicyUsageError("--rows must be a whole number from 1 to 200000");
  }
  const bound = parseBound(values.bound);
  const source = await readManifestSource(values.manifest ?? env.SVC_MANIFEST ?? "svc.json");
  const compiled = compilePolicies(source.manifest);
  const findings = lintPolicies(compiled, { ...(bound !== undefined && { bound }) });
  const measurements: (IndexMeasurement & { index: string })[] = [];
  if (values.measure) {
    const probes = await openProbeDatabases(values["database-url"]);
    try {
      for (const advice of adviseIndexes(compiled)) {
        for (const database of probes.databases) {
          measurements.push({
            index: advice.createIndex,
            ...(await measureIndex(database, compiled, advice, { rows })),
          });
        }
      }
    } finally {
      await probes.close();
    }
  }
  if (values.json) {
    io.stdout(`${JSON.stringify({ manifest: source.label, findings, measurements }, null, 2)}\n`);
  } else {
    const measured = measurements.map(
      (m) =>
        `measured ${m.index} on ${m.database}, ${m.rows} rows: ${m.withoutIndex} ms -> ${m.withIndex} ms per query (median of 25)`,
    );
    io.stdout(
      formatLintFindings(findings) + (measured.length > 0 ? `\n${measured.join("\n")}\n` : ""),
    );
  }
  const failing: readonly LintLevel[] = FAIL_ON[failOn];
  return findings.some((finding) => failing.includes(finding.level)) ? 1 : 0;
};
