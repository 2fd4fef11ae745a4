import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterEach, describe, expect, it } from "vitest";

// `pnpm dev` (or `npm run dev`) from the repository root, as a newcomer
// runs it: stopping the package manager must stop the server, never leave
// it holding its port. pnpm 11 stops the whole tree itself; npm signals only
// its own child, which is why the script execs tooling/scripts/dev.mjs and
// that passes the signal on to the server (without it the npm cases fail).

const ROOT = resolve(import.meta.dirname, "..", "..", "..");
const dirs: string[] = [];

afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function startDev(manager: "pnpm" | "npm") {
  const dir = mkdtempSync(join(tmpdir(), "svc-dev-script-"));
  dirs.push(dir);
  // The server was built by this package's build, which its tests depend on.
  const child = spawn(manager, ["run", "dev", "--", "--skip-build"], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? "",
      HOME: process.env.HOME ?? dir,
      // npm asks the registry for a newer npm unless told not to.
      npm_config_update_notifier: "false",
      SVC_PORT: "0",
      SVC_HOST: "127.0.0.1",
      SVC_DB_PATH: join(dir, "data.db"),
    },
    stdio: "pipe",
  });
  let stdout = "";
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const exited = new Promise<number | null>((resolveExit) => {
    child.once("exit", (code) => resolveExit(code));
  });
  const url = new Promise<string>((resolveURL, reject) => {
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
      const match = /listening on (http:\/\/[^\s"]+)/.exec(stdout);
      if (match?.[1]) resolveURL(match[1]);
    });
    child.once("exit", () => reject(new Error(`pnpm dev exited before listening: ${stderr}`)));
  });
  url.catch(() => undefined);
  return { child, url, exited };
}

async function answers(url: string): Promise<boolean> {
  try {
    return (await fetch(`${url}/health`)).ok;
  } catch {
    return false;
  }
}

describe("pnpm dev", () => {
  it.each([
    ["pnpm", "SIGTERM"],
    ["pnpm", "SIGINT"],
    ["npm", "SIGTERM"],
    ["npm", "SIGINT"],
  ] as const)(
    "stops the server when %s gets %s",
    async (manager, signal) => {
      const dev = startDev(manager);
      const url = await dev.url;
      expect(await answers(url)).toBe(true);
      dev.child.kill(signal);
      await dev.exited;
      // The server is gone too: its port no longer answers.
      await expect.poll(() => answers(url), { timeout: 10_000 }).toBe(false);
    },
    60_000,
  );
});
