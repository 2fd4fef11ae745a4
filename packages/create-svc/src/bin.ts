#!/usr/bin/env node
import { runCli } from "./run-cli.js";

/** The `create-svc` command (`npm create svc@latest <dir> -- --template <name>`). */
process.exitCode = await runCli(
  process.argv.slice(2),
  { stdout: (text) => process.stdout.write(text), stderr: (text) => process.stderr.write(text) },
  {
    ...(process.env.npm_config_user_agent !== undefined && {
      userAgent: process.env.npm_config_user_agent,
    }),
    // Run through a package script (`pnpm create-app`), paths are the caller's, not the script's.
    ...(process.env.INIT_CWD !== undefined && { cwd: process.env.INIT_CWD }),
  },
);
