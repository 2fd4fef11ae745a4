import { existsSync } from "node:fs";
import { join, relative } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../src/index.js";
import { buildTestTemplates, tempDir } from "./helpers.js";

let templates: Awaited<ReturnType<typeof buildTestTemplates>>;
beforeAll(async () => {
  templates = await buildTestTemplates();
});
afterAll(() => templates[Symbol.dispose]());

async function run(
  argv: string[],
  userAgent?: string,
): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = "";
  let stderr = "";
  const code = await runCli(
    argv,
    {
      stdout: (text) => {
        stdout += text;
      },
      stderr: (text) => {
        stderr += text;
      },
    },
    { templatesDir: templates.dir, ...(userAgent !== undefined && { userAgent }) },
  );
  return { code, stdout, stderr };
}

describe("create-svc", () => {
  it.each([["--help"], ["-h"], ["my-app", "--help"]])(
    "prints usage and templates for %j",
    async (...argv) => {
      const result = await run(argv);
      expect(result).toMatchObject({ code: 0, stderr: "" });
      expect(result.stdout).toContain("Usage: create-svc <dir> [--template <name>]");
      // One line per template, the descriptions in one column.
      const lines = result.stdout.split("\n").filter((line) => /^ {2}[a-z-]+ {2,}\S/.test(line));
      const names = lines.map((line) => line.trim().split(" ")[0]);
      expect(names).toEqual(templates.index.templates.map((template) => template.name));
      expect(names).toEqual(expect.arrayContaining(["ai-chat", "default", "todo", "waitlist"]));
      expect(new Set(lines.map((line) => /^ {2}[a-z-]+ +/.exec(line)?.[0].length)).size).toBe(1);
    },
  );

  it("scaffolds with --template and prints the files and next steps", async () => {
    using temp = tempDir();
    const dir = relative(process.cwd(), join(temp.path, "my-app"));
    const result = await run([dir, "--template", "todo"]);
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('Created my-app from the "todo" template');
    expect(result.stdout).toContain("  functions/createTodo.ts\n");
    expect(result.stdout).toContain(`Next steps:\n  cd ${dir}\n  npm install\n  npm run dev\n`);
    expect(existsSync(join(temp.path, "my-app", "svc.json"))).toBe(true);
  });

  it.each([
    ["pnpm/11.28.11 npm/? node/v24.0.0 linux x64", "pnpm install\n  pnpm dev"],
    ["yarn/4.9.0 npm/? node/v24.0.0", "yarn\n  yarn dev"],
    ["npm/11.0.0 node/v24.0.0", "npm install\n  npm run dev"],
  ])("prints next steps for the package manager %j", async (userAgent, steps) => {
    using temp = tempDir();
    const result = await run([join(temp.path, "app"), "-t", "default"], userAgent);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(steps);
  });

  it("defaults to the default template", async () => {
    using temp = tempDir();
    const result = await run([join(temp.path, "app")]);
    expect(result.stdout).toContain('from the "default" template');
  });

  it("lists the templates and exits 1 on an unknown template", async () => {
    using temp = tempDir();
    const result = await run([join(temp.path, "app"), "--template", "nope"]);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe("");
    expect(result.stderr).toMatch(/^create-svc: There is no template "nope"/);
    expect(result.stderr).toMatch(/Templates:\n {2}ai-chat .*\n(.*\n)* {2}default /);
    expect(existsSync(join(temp.path, "app"))).toBe(false);
  });

  it.each([
    [[], /missing <dir>/],
    [["a", "b"], /unexpected arguments: b/],
    [["a", "--nope"], /Unknown option '--nope'/],
    [["a", "--template"], /argument missing/],
  ])("exits 1 with usage for %j", async (argv, problem) => {
    const result = await run(argv);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(problem);
    expect(result.stderr).toContain("Usage: create-svc");
  });

  it.each([
    ["an invalid name", "Bad Name", /cannot be the app's package name/],
    ["a non-empty directory", ".", /is not empty/],
  ])("exits 1 on %s", async (_case, name, problem) => {
    using temp = tempDir();
    const target = name === "." ? process.cwd() : join(temp.path, name);
    const result = await run([target]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(problem);
  });
});
