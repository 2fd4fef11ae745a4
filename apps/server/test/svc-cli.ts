import { runCli } from "../src/cli/run-cli.js";

/** What one `svc` command did: its exit code and everything it printed. */
export interface CliResult {
  readonly code: number;
  readonly out: string;
  readonly err: string;
}

/** Runs the `svc` command line in process with `env` and collects what it prints. */
export async function runSvc(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>> = {},
): Promise<CliResult> {
  let out = "";
  let err = "";
  const code = await runCli(
    argv,
    {
      stdout: (text) => {
        out += text;
      },
      stderr: (text) => {
        err += text;
      },
    },
    env,
  );
  return { code, out, err };
}

/** Runs `svc <argv>` with an empty environment. */
export function svc(...argv: string[]): Promise<CliResult> {
  return runSvc(argv);
}
