import { compilePolicies, explain, POLICY_ACTIONS } from "@svc/policy-engine";
import { authContextSchema, createAuthContext } from "@svc/schema";
import { isStoreDialect, STORE_DIALECTS, sqliteDialect } from "@svc/store";
import { z } from "zod";
import { loadManifestFile } from "../manifest-file.js";
import { BACKUP_USAGE, BackupUsageError, runBackupCommand } from "./backup-command.js";
import { BUILD_USAGE, BuildError, runBuildCommand } from "./build-command.js";
import { type CliCommand, type CliEnv, parseCommandLine } from "./cli-command.js";
import type { CliIO } from "./cli-io.js";
import { CODEGEN_USAGE, CodegenUsageError, runCodegen } from "./codegen.js";
import { configRefusal, isParseArgsError, policyRefusal, runReported } from "./command-errors.js";
import { formatExplanation } from "./format-explanation.js";
import { isPolicyCommand, runPolicyCommand } from "./policy-command.js";
import { runSeedCommand, SEED_USAGE, SeedError, SeedUsageError } from "./seed-command.js";

export type { CliIO } from "./cli-io.js";

const USAGE = `Usage: svc policy explain <Entity> <read|insert|update|delete> [options]

Prints the entity's rules for the action as parsed, the SQL a read compiles
to, and, given the rows the action looks at, the verdict and what decided it.

Options:
  --manifest <path>    the manifest (default: $SVC_MANIFEST or svc.json)
  --auth <json>        the caller, e.g. '{"userId":"u1","roles":["admin"]}'
  --data <json>        the row (read), new row (insert) or merged row (update)
  --existing <json>    the stored row (update, delete)
  --dialect <name>     sqlite (default) or postgres, for the SQL
  --json               print the explanation as JSON

Other commands:
  svc policy test|diff|lint|check   access tests, diffs, lint and claims (svc policy test --help)
  svc codegen          writes the app's Api type for @svc/client (svc codegen --help)
  svc backup <dir>     backs up the embedded database and uploads (svc backup --help)
  svc restore <dir>    restores such a backup (svc restore --help)
  svc seed             loads seed/*.json into the running server (svc seed --help)
  svc build --target edge   bundles the app into a Cloudflare Worker (svc build --help)
`;

// The caller's fields from @svc/schema, each optional (the rest default to the anonymous caller's).
const authInput = authContextSchema.unwrap().partial().strict();
const rowInput = z.record(z.string(), z.unknown());

class UsageError extends Error {}

function parseJSON<T>(flag: string, text: string | undefined, schema: z.ZodType<T>): T | undefined {
  if (text === undefined) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new UsageError(`--${flag} must be JSON`);
  }
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    throw new UsageError(`--${flag}: ${parsed.error.issues[0]?.message ?? "invalid"}`);
  }
  return parsed.data;
}

/**
 * The `svc` command line: `svc policy explain`, `svc codegen`, `svc backup`,
 * `svc restore`, `svc seed` and `svc build`. Returns the exit code: 0 done, 1 the manifest, its
 * policies, a file or the environment is invalid or a backup or restore was
 * refused, 2 a usage error.
 */
export async function runCli(
  argv: readonly string[],
  io: CliIO,
  env: CliEnv = {},
): Promise<number> {
  if (argv[0] === "backup" || argv[0] === "restore") {
    return runReported(
      io,
      {
        usage: BACKUP_USAGE,
        isUsage: (error) => error instanceof BackupUsageError || isParseArgsError(error),
        refusal: configRefusal,
      },
      () => runBackupCommand(argv, io, env),
    );
  }
  if (isPolicyCommand(argv)) return runPolicyCommand(argv, io, env);
  if (argv[0] === "seed") {
    return runReported(
      io,
      {
        usage: SEED_USAGE,
        isUsage: (error) => error instanceof SeedUsageError || isParseArgsError(error),
        refusal: (error) => (error instanceof SeedError ? `seed: ${error.message}` : undefined),
      },
      () => runSeedCommand(argv, io, env),
    );
  }
  if (argv[0] === "build") {
    return runReported(
      io,
      { usage: BUILD_USAGE, isUsage: isParseArgsError, refusal: configRefusal },
      async () => {
        try {
          return await runBuildCommand(argv.slice(1), io, env);
        } catch (error) {
          if (!(error instanceof BuildError)) throw error;
          // A build refusal names its code; an unknown target is a usage mistake.
          const unknownTarget = error.code === "UNKNOWN_BUILD_TARGET";
          io.stderr(
            `svc: build: ${error.code}: ${error.message}\n${unknownTarget ? `\n${BUILD_USAGE}` : ""}`,
          );
          return unknownTarget ? 2 : 1;
        }
      },
    );
  }
  if (argv[0] === "codegen") {
    return runReported(
      io,
      {
        usage: CODEGEN_USAGE,
        isUsage: (error) => error instanceof CodegenUsageError,
        refusal: configRefusal,
      },
      () => runCodegen(argv.slice(1), io, env),
    );
  }
  return runReported(
    io,
    {
      usage: USAGE,
      isUsage: (error) => error instanceof UsageError || isParseArgsError(error),
      refusal: policyRefusal,
    },
    () => runPolicyExplain(argv, io, env),
  );
}

/** `svc policy explain <Entity> <action>`: the rules, their SQL and a verdict. */
const runPolicyExplain: CliCommand = async (argv, io, env) => {
  const { values, positionals } = parseCommandLine(argv, {
    manifest: { type: "string" },
    auth: { type: "string" },
    data: { type: "string" },
    existing: { type: "string" },
    dialect: { type: "string", default: sqliteDialect.name },
    json: { type: "boolean", default: false },
    help: { type: "boolean", short: "h", default: false },
  });
  if (values.help) {
    io.stdout(USAGE);
    return 0;
  }
  const [group, command, entity, action] = positionals;
  if (group !== "policy" || command !== "explain" || entity === undefined || action === undefined) {
    throw new UsageError("expected: svc policy explain <Entity> <action>");
  }
  const knownAction = POLICY_ACTIONS.find((candidate) => candidate === action);
  if (knownAction === undefined) {
    throw new UsageError(`the action must be one of ${POLICY_ACTIONS.join(", ")}`);
  }
  if (!isStoreDialect(values.dialect)) {
    throw new UsageError(`--dialect must be ${STORE_DIALECTS.join(" or ")}`);
  }
  const manifest = await loadManifestFile(values.manifest ?? env.SVC_MANIFEST ?? "svc.json");
  if (!manifest.entities.some((candidate) => candidate.name === entity)) {
    throw new UsageError(`the manifest has no entity ${entity}`);
  }
  const compiled = compilePolicies(manifest);
  const data = parseJSON("data", values.data, rowInput);
  const existing = parseJSON("existing", values.existing, rowInput);
  const explanation = explain(compiled, {
    entity,
    action: knownAction,
    auth: createAuthContext(parseJSON("auth", values.auth, authInput) ?? {}),
    dialect: values.dialect,
    ...(data !== undefined && { data }),
    ...(existing !== undefined && { existing }),
  });
  io.stdout(
    values.json ? `${JSON.stringify(explanation, null, 2)}\n` : formatExplanation(explanation),
  );
  return 0;
};
