#!/usr/bin/env node
import { runCli } from "./cli/run-cli.js";

/** The `svc` command: developer and operator tools (`svc policy explain`, `svc codegen`, `svc backup`, `svc restore`, `svc seed`, `svc build`). */
process.exitCode = await runCli(
  process.argv.slice(2),
  { stdout: (text) => process.stdout.write(text), stderr: (text) => process.stderr.write(text) },
  process.env,
);
