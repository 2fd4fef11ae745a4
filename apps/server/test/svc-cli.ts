import { runCli } from "../src/cli/run-cli.js";

/** Runs the `svc` command line in process and collects what it prints. */
export async function svc(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
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
    {},
  );
  return { code, out, err };
}
