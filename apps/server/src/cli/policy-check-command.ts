import { compilePolicies } from "@svc/policy-engine";
import { checkClaim, formatClaimReport } from "@svc/policy-engine/analysis";
import { type CliCommand, parseCommandLine } from "./cli-command.js";
import { readManifestSource } from "./manifest-source.js";
import { parseBound } from "./policy-options.js";
import { PolicyUsageError } from "./policy-usage.js";
import { openProbeDatabases } from "./probe-databases.js";

/**
 * `svc policy check --claim "<Entity>.<action>: <expression>"` (repeatable):
 * a counterexample search per claim; every candidate also runs through the
 * SQL on SQLite (and Postgres with `--database-url`). Exit 1 when a claim
 * is broken or the SQL disagrees with the evaluator.
 */
export const runPolicyCheck: CliCommand = async (argv, io, env) => {
  const { values, positionals } = parseCommandLine(argv, {
    manifest: { type: "string" },
    claim: { type: "string", multiple: true },
    bound: { type: "string" },
    "database-url": { type: "string" },
    json: { type: "boolean", default: false },
  });
  if (positionals.length > 0) throw new PolicyUsageError(`unexpected argument ${positionals[0]}`);
  const claims = values.claim ?? [];
  if (claims.length === 0)
    throw new PolicyUsageError('give a claim: --claim "Todo.read: auth.userId == data.ownerId"');
  if (claims.length > 20) throw new PolicyUsageError("at most 20 claims at once");
  const bound = parseBound(values.bound);
  const source = await readManifestSource(values.manifest ?? env.SVC_MANIFEST ?? "svc.json");
  const compiled = compilePolicies(source.manifest);
  const probes = await openProbeDatabases(values["database-url"]);
  try {
    const reports = [];
    for (const claim of claims) {
      reports.push(
        await checkClaim(compiled, claim, {
          databases: probes.databases,
          ...(bound !== undefined && { bound }),
        }),
      );
    }
    io.stdout(
      values.json
        ? `${JSON.stringify({ manifest: source.label, claims: reports }, null, 2)}\n`
        : reports.map(formatClaimReport).join("\n"),
    );
    const broken = reports.some(
      (report) => !report.holds || report.sql.some((check) => check.disagreements > 0),
    );
    return broken ? 1 : 0;
  } finally {
    await probes.close();
  }
};
