import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { scaffold } from "create-svc";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tempDir } from "./fixtures.js";

// create-svc --edge end to end: scaffold the default template as an edge app
// from this checkout, run its `build` script (svc build --target edge) and
// its `dev` script (the Worker in workerd through miniflare, on a local D1),
// then sign in and call a function and an entity route over HTTP.

const WORKSPACE_ROOT = join(import.meta.dirname, "../../..");
const SERVER_DIR = join(WORKSPACE_ROOT, "apps/server");
const EDGE_DIR = join(WORKSPACE_ROOT, "packages/edge");
const FUNCTIONS_DIR = join(WORKSPACE_ROOT, "packages/functions");
const fromFunctions = createRequire(join(FUNCTIONS_DIR, "package.json"));
const fromEdge = createRequire(join(EDGE_DIR, "package.json"));

/** What `pnpm install` would give the app, as symlinks into this workspace, and the `svc` bin. */
function linkDependencies(appDir: string): void {
  const packages: Record<string, string> = {
    "@svc/server": SERVER_DIR,
    "@svc/edge": EDGE_DIR,
    "@svc/functions": FUNCTIONS_DIR,
    zod: dirname(fromFunctions.resolve("zod/package.json")),
    miniflare: dirname(fromEdge.resolve("miniflare/package.json")),
  };
  for (const [name, target] of Object.entries(packages)) {
    const link = join(appDir, "node_modules", name);
    mkdirSync(dirname(link), { recursive: true });
    symlinkSync(target, link, "junction");
  }
  mkdirSync(join(appDir, "node_modules/.bin"), { recursive: true });
  symlinkSync(join(SERVER_DIR, "dist/cli.js"), join(appDir, "node_modules/.bin/svc"));
}

/** Runs one of the app's scripts as a package manager would: its bins on PATH. */
function scriptEnv(appDir: string): NodeJS.ProcessEnv {
  return {
    ...process.env,
    PATH: `${join(appDir, "node_modules/.bin")}:${process.env.PATH ?? ""}`,
    PORT: "0",
  };
}

describe("an app scaffolded with --edge", () => {
  const temp = tempDir();
  const appDir = join(temp.path, "edge-app");
  let scripts: Record<string, string>;
  let dev: ChildProcess | undefined;
  let origin: string;

  beforeAll(async () => {
    await scaffold({ targetDir: appDir, edge: true, checkout: WORKSPACE_ROOT });
    linkDependencies(appDir);
    scripts = (
      JSON.parse(readFileSync(join(appDir, "package.json"), "utf8")) as {
        scripts: Record<string, string>;
      }
    ).scripts;
  });

  afterAll(async () => {
    if (dev?.pid !== undefined && dev.exitCode === null) {
      const exited = new Promise((resolve) => dev?.once("exit", resolve));
      process.kill(-dev.pid, "SIGTERM");
      await exited;
    }
    temp[Symbol.dispose]();
  });

  it("builds the Worker with its build script", () => {
    expect(scripts.build).toBe("svc build --target edge");
    const built = spawnSync("sh", ["-c", scripts.build as string], {
      cwd: appDir,
      env: scriptEnv(appDir),
      encoding: "utf8",
    });
    expect(built.stderr).toBe("");
    expect(built.status).toBe(0);
    expect(existsSync(join(appDir, "edge/worker.js"))).toBe(true);
    expect(readdirSync(join(appDir, "edge/migrations"))).toEqual(["0001_svc.sql"]);
    expect(readFileSync(join(appDir, "edge/wrangler.jsonc"), "utf8")).toContain(
      '"name": "edge-app"',
    );
  });

  it("serves it locally with its dev script: a function and an entity route", async () => {
    dev = spawn("sh", ["-c", scripts.dev as string], {
      cwd: appDir,
      env: scriptEnv(appDir),
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    dev.stderr?.on("data", (chunk: Buffer) => {
      output += chunk.toString();
    });
    origin = await new Promise<string>((resolve, reject) => {
      dev?.stdout?.on("data", (chunk: Buffer) => {
        output += chunk.toString();
        const found = /edge-dev: edge-app on (http:\/\/127\.0\.0\.1:\d+)/.exec(output);
        if (found?.[1] !== undefined) resolve(found[1]);
      });
      dev?.once("exit", (code) => reject(new Error(`dev exited ${code}: ${output}`)));
    });
    expect(output).toContain("edge-dev: applied 0001_svc.sql");

    const health = await fetch(`${origin}/health`);
    expect(health.status).toBe(200);

    const registered = await fetch(`${origin}/api/auth/password/register`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: "ada@example.com", password: "a long enough password" }),
    });
    expect(registered.status).toBe(200);
    const { token } = (await registered.json()) as { token: string };
    const headers = { "content-type": "application/json", authorization: `Bearer ${token}` };

    const added = await fetch(`${origin}/api/fn/addNote`, {
      method: "POST",
      headers,
      body: JSON.stringify({ text: "from the edge" }),
    });
    expect(added.status).toBe(200);
    const note = (await added.json()) as { id: string };

    const read = await fetch(`${origin}/api/entities/Note/${note.id}`, { headers });
    expect(read.status).toBe(200);
    expect(((await read.json()) as { text: string }).text).toBe("from the edge");

    const listed = await fetch(`${origin}/api/fn/listNotes`, {
      method: "POST",
      headers,
      body: "{}",
    });
    expect(listed.status).toBe(200);
    expect(JSON.stringify(await listed.json())).toContain("from the edge");
  });
});
