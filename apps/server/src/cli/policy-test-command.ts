import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { compilePolicies } from "@svc/policy-engine";
import { formatAccessReport, runAccessTests } from "@svc/policy-engine/access-tests";
import { ConfigError } from "../config.js";
import { type CliCommand, parseCommandLine } from "./cli-command.js";
import { readManifestSource } from "./manifest-source.js";
import { PolicyUsageError } from "./policy-usage.js";
import { openProbeDatabases } from "./probe-databases.js";

/** The largest access tests file read: it is JSON a person wrote. */
const MAX_FILE_BYTES = 4 * 1024 * 1024;

/** The access tests file beside the manifest, by default. */
export const ACCESS_TESTS_FILE = "policies.test.json";

async function readTestsFile(path: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    const missing = (error as { code?: unknown }).code === "ENOENT";
    throw new ConfigError(
      "SVC_MANIFEST",
      `cannot read ${path}: ${missing ? "no such file" : "unreadable"}`,
    );
  }
  if (Buffer.byteLength(text) > MAX_FILE_BYTES) {
    throw new ConfigError("SVC_MANIFEST", `${path} is larger than ${MAX_FILE_BYTES} bytes`);
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new ConfigError("SVC_MANIFEST", `${path} is not valid JSON: ${(error as Error).message}`);
  }
}

/**
 * `svc policy test`: runs the access tests file through the evaluator and
 * the compiled SQL (SQLite always, Postgres with `--database-url`). Exit 0
 * when every expectation holds everywhere, 1 on a mismatch.
 */
export const runPolicyTest: CliCommand = async (argv, io, env) => {
  const { values, positionals } = parseCommandLine(argv, {
    manifest: { type: "string" },
    file: { type: "string" },
    "database-url": { type: "string" },
    json: { type: "boolean", default: false },
  });
  if (positionals.length > 0) throw new PolicyUsageError(`unexpected argument ${positionals[0]}`);
  const source = await readManifestSource(values.manifest ?? env.SVC_MANIFEST ?? "svc.json");
  const file = values.file ?? join(source.dir, ACCESS_TESTS_FILE);
  const compiled = compilePolicies(source.manifest);
  const tests = await readTestsFile(file);
  const probes = await openProbeDatabases(values["database-url"]);
  try {
    const report = await runAccessTests(compiled, tests, {
      source: file,
      databases: probes.databases,
    });
    io.stdout(
      values.json
        ? `${JSON.stringify({ file, ...report }, null, 2)}\n`
        : formatAccessReport(report, file),
    );
    return report.mismatches.length === 0 ? 0 : 1;
  } finally {
    await probes.close();
  }
};
