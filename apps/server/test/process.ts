import { type ChildProcess, spawn } from "node:child_process";
import { resolve } from "node:path";
import { afterEach } from "vitest";
import { ADMIN_TOKEN } from "./fixtures.js";

const SERVER_DIR = resolve(import.meta.dirname, "..");

/** A server started as its own process, from source, as `svc-server` would run. */
export interface ServerProcess {
  readonly child: ChildProcess;
  /** Resolves with the URL once the server prints its listening line. */
  readonly ready: Promise<string>;
  /** Resolves with the exit code (or signal) and everything printed to stdout (the log) and stderr. */
  readonly exited: Promise<{
    code: number | null;
    signal: NodeJS.Signals | null;
    stdout: string;
    stderr: string;
  }>;
}

/**
 * Spawns `src/main.ts` under tsx with the `@svc/source` condition, so the
 * test needs no build. The environment is exactly `env` plus PATH.
 */
export function spawnServer(env: Record<string, string>): ServerProcess {
  const child = spawn(
    process.execPath,
    ["--conditions=@svc/source", "--import", "tsx", "src/main.ts"],
    { cwd: SERVER_DIR, env: { PATH: process.env.PATH ?? "", ...env }, stdio: "pipe" },
  );
  let stdout = "";
  let stderr = "";
  const ready = new Promise<string>((resolveReady, reject) => {
    child.stdout?.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
      const match = /listening on (http:\/\/[^\s"]+)/.exec(stdout);
      if (match?.[1]) resolveReady(match[1]);
    });
    child.once("exit", () => reject(new Error(`server exited before listening: ${stderr}`)));
  });
  ready.catch(() => undefined);
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const exited = new Promise<{
    code: number | null;
    signal: NodeJS.Signals | null;
    stdout: string;
    stderr: string;
  }>((resolveExit) => {
    child.once("exit", (code, signal) => resolveExit({ code, signal, stdout, stderr }));
  });
  return { child, ready, exited };
}

/** What every spawned test server is given: a free loopback port (and side ports) and the admin token. */
export const SPAWN_BASE_ENV: Readonly<Record<string, string>> = {
  SVC_PORT: "0",
  SVC_HOST: "127.0.0.1",
  SVC_ADMIN_TOKEN: ADMIN_TOKEN,
};

/** Kills each server that was spawned (SIGKILL) and waits until it has exited. */
export async function killAll(servers: readonly (ServerProcess | undefined)[]): Promise<void> {
  for (const server of servers) server?.child.kill("SIGKILL");
  await Promise.all(servers.map((server) => server?.exited));
}

/**
 * A `spawnServer` whose servers are killed (SIGKILL) after each test of
 * the calling file or suite, so a failing test leaves none running.
 */
export function spawnedPerTest(): (env: Record<string, string>) => ServerProcess {
  const running: ServerProcess[] = [];
  afterEach(() => {
    for (const server of running.splice(0)) server.child.kill("SIGKILL");
  });
  return (env) => {
    const server = spawnServer(env);
    running.push(server);
    return server;
  };
}
