import { PolicyError } from "@svc/policy-engine";
import { ConfigError } from "../config.js";
import type { CliIO } from "./cli-io.js";
import { runPolicyCheck } from "./policy-check-command.js";
import { runPolicyDiff } from "./policy-diff-command.js";
import { policyErrorText } from "./policy-error-text.js";
import { runPolicyLint } from "./policy-lint-command.js";
import { runPolicyTest } from "./policy-test-command.js";
import { POLICY_USAGE, PolicyUsageError } from "./policy-usage.js";

type Command = (
  argv: readonly string[],
  io: CliIO,
  env: Readonly<Record<string, string | undefined>>,
) => Promise<number>;

const COMMANDS: Readonly<Record<string, Command>> = {
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
export async function runPolicyCommand(
  argv: readonly string[],
  io: CliIO,
  env: Readonly<Record<string, string | undefined>>,
): Promise<number> {
  const name = argv[1] ?? "";
  const command = COMMANDS[name];
  if (command === undefined) throw new Error(`unreachable: svc policy ${name}`);
  if (argv.includes("--help") || argv.includes("-h")) {
    io.stdout(POLICY_USAGE);
    return 0;
  }
  try {
    return await command(argv.slice(2), io, env);
  } catch (error) {
    if (error instanceof PolicyUsageError || (error instanceof TypeError && "code" in error)) {
      io.stderr(`svc: ${error.message}\n\n${POLICY_USAGE}`);
      return 2;
    }
    if (error instanceof PolicyError) {
      io.stderr(`svc: ${policyErrorText(error)}\n`);
      return 1;
    }
    if (error instanceof ConfigError) {
      io.stderr(`svc: ${error.message}\n`);
      return 1;
    }
    throw error;
  }
}
