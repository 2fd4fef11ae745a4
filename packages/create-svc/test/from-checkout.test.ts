import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../src/run-cli.js";
import { buildTestTemplates, tempDir, WORKSPACE_ROOT } from "./helpers.js";

// What a newcomer does with no published packages: scaffold from this
// checkout (`pnpm create-app <dir> --template <t>`), install with pnpm,
// type-check, boot the server the app depends on, call a function. Needs
// the checkout built (`pnpm build`), as the README's set-up leaves it.

const SMOKE = [
  {
    template: "default",
    mutation: "addNote",
    args: { text: "hello", ownerId: "me" },
    query: "listNotes",
  },
  {
    template: "todo",
    mutation: "createTodo",
    args: { title: "Milk", ownerId: "me" },
    query: "listTodos",
  },
];

let templates: Awaited<ReturnType<typeof buildTestTemplates>>;
beforeAll(async () => {
  templates = await buildTestTemplates();
});
afterAll(() => templates?.[Symbol.dispose]());

function run(command: string, args: string[], cwd: string): void {
  const result = spawnSync(command, args, {
    cwd,
    encoding: "utf8",
    env: { ...process.env, CI: "true" },
  });
  expect(result.status, `${command} ${args.join(" ")}\n${result.stdout}\n${result.stderr}`).toBe(0);
}

/** Starts the app's own `svc-server` and resolves with its address once it listens. */
function boot(appDir: string): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(join(appDir, "node_modules", ".bin", "svc-server"), [], {
    cwd: appDir,
    env: {
      ...process.env,
      SVC_PORT: "0",
      SVC_HOST: "127.0.0.1",
      SVC_DB_PATH: ":memory:",
      SVC_DEV_MODE: "true",
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  return new Promise((resolveBoot, reject) => {
    let output = "";
    const onData = (chunk: Buffer) => {
      output += String(chunk);
      const url = /listening on (http:\/\/\S+)/.exec(output)?.[1];
      if (url !== undefined) resolveBoot({ url, child });
    };
    child.stdout?.on("data", onData);
    child.stderr?.on("data", onData);
    child.once("exit", (code) => reject(new Error(`svc-server exited with ${code}:\n${output}`)));
  });
}

describe("an app scaffolded from this checkout", () => {
  it.each(SMOKE)(
    "installs, type-checks, boots and answers $mutation from the $template template",
    async (smoke) => {
      using temp = tempDir();
      const appDir = join(temp.path, `${smoke.template}-app`);
      const output: string[] = [];
      const code = await runCli(
        [appDir, "--template", smoke.template, "--from-checkout", WORKSPACE_ROOT],
        { stdout: (text) => output.push(text), stderr: (text) => output.push(text) },
        { templatesDir: templates.dir },
      );
      expect(code, output.join("")).toBe(0);
      expect(output.join("")).toContain("pnpm install --ignore-workspace");
      const manifest = JSON.parse(await readFile(join(appDir, "package.json"), "utf8")) as {
        dependencies: Record<string, string>;
      };
      expect(manifest.dependencies["@svc/server"]).toBe(
        `link:${join(WORKSPACE_ROOT, "apps/server")}`,
      );

      run("pnpm", ["install", "--ignore-workspace", "--prefer-offline"], appDir);
      run("pnpm", ["run", "typecheck"], appDir);

      const { url, child } = await boot(appDir);
      try {
        const admin = (await readFile(join(appDir, ".svc", "admin-token"), "utf8")).trim();
        const call = (name: string, body: unknown) =>
          fetch(`${url}/api/fn/${name}`, {
            method: "POST",
            headers: { authorization: `Bearer ${admin}` },
            body: JSON.stringify(body),
          });
        const created = await call(smoke.mutation, smoke.args);
        expect(created.status, await created.clone().text()).toBe(200);
        const { id } = (await created.json()) as { id: string };
        const listed = await call(smoke.query, {});
        expect(await listed.json()).toMatchObject({ rows: [expect.objectContaining({ id })] });
      } finally {
        child.kill("SIGTERM");
      }
    },
    180_000,
  );

  it("refuses a directory that is not a checkout", async () => {
    using temp = tempDir();
    const output: string[] = [];
    const code = await runCli(
      [join(temp.path, "app"), "--from-checkout", temp.path],
      { stdout: (text) => output.push(text), stderr: (text) => output.push(text) },
      { templatesDir: templates.dir },
    );
    expect(code).toBe(1);
    expect(output.join("")).toContain("is not a checkout of the svc repository");
  });
});
