import type { CliCommand } from "./cli-command.js";
import { isParseArgsError, policyRefusal, runReported } from "./command-errors.js";
import { runPolicyCheck } from "./policy-check-command.js";
import { runPolicyDiff } from "./policy-diff-command.js";
import { runPolicyLint } from "./policy-lint-command.js";
import { runPolicyTest } from "./policy-test-command.js";
import { POLICY_USAGE, PolicyUsageError } from "./policy-usage.js";

const COMMANDS: Readonly<Record<string, CliCommand>> = {
  test: runPolicyTest,
  diff: runPolicyDiff,
  lint: runPolicyLint,
  check: runPolicyCheck,
};

/** True for `svc policy <command>` handled here (everything but `explain`). */
export function isPolicyCommand(argv: readonly string[]): boolean {
  return argv[0] === "policy" && argv[1] !== undefined && Object.hasOwn(COMMANDS, argv[1]);
}

/**
 * Runs `svc policy test|diff|lint|check`. Exit codes: 0 done and clean,
 * 1 a finding (mismatch, widening, lint finding, counterexample) or an
 * invalid manifest, file or database, 2 a usage error.
 */
export const runPolicyCommand: CliCommand = async (argv, io, env) => {
  const name = argv[1] ?? "";
  const command = COMMANDS[name];
  if (command === undefined) throw new Error(`unreachable: svc policy ${name}`);
  if (argv.includes("--help") || argv.includes("-h")) {
    io.stdout(POLICY_USAGE);
    return 0;
  }
  return runReported(
    io,
    {
      usage: POLICY_USAGE,
      isUsage: (error) => error instanceof PolicyUsageError || isParseArgsError(error),
      refusal: policyRefusal,
    },
    () => command(argv.slice(2), io, env),
  );
};
