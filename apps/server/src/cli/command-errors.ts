import { PolicyError } from "@svc/policy-engine";
import { ConfigError } from "../config.js";
import type { CliIO } from "./cli-io.js";
import { policyErrorText } from "./policy-error-text.js";

/** How one command's errors reach the user. */
export interface CommandErrors {
  /** Printed after a usage mistake. */
  readonly usage: string;
  /** The command's usage mistakes (exit 2). */
  readonly isUsage: (error: unknown) => boolean;
  /** The line of an expected refusal (exit 1), or undefined for an error to throw on. */
  readonly refusal: (error: unknown) => string | undefined;
}

/** A mistake `parseArgs` found (an unknown option, a missing value): a `TypeError` with a `code`. */
export function isParseArgsError(error: unknown): boolean {
  return error instanceof TypeError && "code" in error;
}

/** A manifest, file or environment the command cannot use: its message. */
export function configRefusal(error: unknown): string | undefined {
  return error instanceof ConfigError ? error.message : undefined;
}

/** An invalid manifest or policy, told as `policyErrorText` does, else a `ConfigError`'s message. */
export function policyRefusal(error: unknown): string | undefined {
  return error instanceof PolicyError ? policyErrorText(error) : configRefusal(error);
}

/**
 * Runs a command and answers its exit code: its own, else 2 with the usage
 * after a usage mistake, 1 with `svc: <line>` after a refusal. Anything
 * else is thrown on.
 */
export async function runReported(
  io: CliIO,
  errors: CommandErrors,
  command: () => Promise<number>,
): Promise<number> {
  try {
    return await command();
  } catch (error) {
    if (errors.isUsage(error)) {
      io.stderr(`svc: ${(error as Error).message}\n\n${errors.usage}`);
      return 2;
    }
    const refusal = errors.refusal(error);
    if (refusal === undefined) throw error;
    io.stderr(`svc: ${refusal}\n`);
    return 1;
  }
}
