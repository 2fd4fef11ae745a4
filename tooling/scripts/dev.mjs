#!/usr/bin/env node
// `pnpm dev`: builds what the dev server needs (the server and the todo
// app's page), then runs the server in the foreground in dev mode. The
// server is this process's child and every signal that stops `pnpm dev`
// (Ctrl-C, a SIGTERM to pnpm, a closed terminal) is passed on to it, so
// stopping `pnpm dev` never leaves a server holding the port.
//
// `--skip-build` starts the server from the last build.
import { spawn, spawnSync } from "node:child_process";
import { constants } from "node:os";
import { join } from "node:path";

const root = join(import.meta.dirname, "..", "..");
const STOP_SIGNALS = ["SIGINT", "SIGTERM", "SIGHUP"];

if (!process.argv.includes("--skip-build")) {
  const build = spawnSync(
    "pnpm",
    [
      "exec",
      "turbo",
      "run",
      "build",
      "--filter=@svc/server...",
      "--filter=@svc/example-todo...",
      "--output-logs=errors-only",
    ],
    { cwd: root, stdio: "inherit" },
  );
  if (build.status !== 0) process.exit(build.status ?? 1);
}

const server = spawn(process.execPath, [join(root, "apps", "server", "dist", "main.js")], {
  cwd: root,
  stdio: "inherit",
  env: {
    ...process.env,
    SVC_DEV_MODE: process.env.SVC_DEV_MODE ?? "true",
    SVC_MANIFEST: process.env.SVC_MANIFEST ?? "examples/todo/svc.json",
  },
});
for (const signal of STOP_SIGNALS) {
  process.on(signal, () => server.kill(signal));
}
server.on("exit", (code, signal) => {
  process.exit(code ?? 128 + (signal === null ? 1 : (constants.signals[signal] ?? 1)));
});
