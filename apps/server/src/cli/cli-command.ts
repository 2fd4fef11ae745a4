import { type ParseArgsOptionsConfig, parseArgs } from "node:util";
import type { CliIO } from "./cli-io.js";

/** The environment a command reads (`process.env` when run as `svc`). */
export type CliEnv = Readonly<Record<string, string | undefined>>;

/** One `svc` command: its arguments, where it writes and the environment; answers the exit code. */
export type CliCommand = (argv: readonly string[], io: CliIO, env: CliEnv) => Promise<number>;

/**
 * `parseArgs` over a command's arguments with `options`; positionals are
 * always allowed, each command checks the ones it takes. An unknown option
 * or a missing value throws parseArgs' own `TypeError`.
 */
export function parseCommandLine<const Options extends ParseArgsOptionsConfig>(
  args: readonly string[],
  options: Options,
) {
  return parseArgs({ args: [...args], allowPositionals: true, options });
}
