import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ScaffoldError, scaffold } from "../src/index.js";
import { buildTestTemplates, tempDir, WORKSPACE_ROOT } from "./helpers.js";

let templates: Awaited<ReturnType<typeof buildTestTemplates>>;
beforeAll(async () => {
  templates = await buildTestTemplates();
});
afterAll(() => templates[Symbol.dispose]());

function readJSON(path: string): unknown {
  return JSON.parse(readFileSync(path, "utf8"));
}

const SERVE = "SVC_DEV_MODE=true svc-server";

/** Every file under `dir`, relative with `/` separators, sorted. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(dir, join(entry.parentPath, entry.name)).split(sep).join("/"))
    .sort();
}

const TEMPLATE_NAMES = readdirSync(join(WORKSPACE_ROOT, "examples")).filter((name) =>
  existsSync(join(WORKSPACE_ROOT, "examples", name, "svc.json")),
);

describe("scaffold", () => {
  it("knows a template for every example", () => {
    expect(TEMPLATE_NAMES).toEqual(
      expect.arrayContaining([
        "default",
        "todo",
        "chat",
        "shop",
        "consumer",
        "waitlist",
        "ai-chat",
      ]),
    );
    expect(templates.index.templates.map((template) => template.name)).toEqual(
      [...TEMPLATE_NAMES].sort(),
    );
  });

  it.each(TEMPLATE_NAMES)("creates a standalone app from the %s template", async (template) => {
    using temp = tempDir();
    const targetDir = join(temp.path, "my-app");
    const result = await scaffold({ template, targetDir, templatesDir: templates.dir });
    const example = join(WORKSPACE_ROOT, "examples", template);
    const templateDir = join(templates.dir, template);
    const info = templates.index.templates.find((candidate) => candidate.name === template);
    // pnpm's settings: esbuild's install script may be skipped.
    const needsPnpmSettings = info?.devDependencies.includes("esbuild") === true;
    const generated = [
      "package.json",
      "README.md",
      ".gitignore",
      ...(needsPnpmSettings ? ["pnpm-workspace.yaml"] : []),
    ];

    expect(result).toMatchObject({ targetDir, name: "my-app", template });
    expect(result.files).toEqual([...filesUnder(templateDir), ...generated].sort());
    expect(filesUnder(targetDir)).toEqual(result.files);
    for (const file of filesUnder(templateDir).filter((file) => file !== "svc.json")) {
      expect(readFileSync(join(targetDir, file), "utf8"), file).toBe(
        readFileSync(join(templateDir, file), "utf8"),
      );
    }
    // The sources come over from the example unchanged; no test, no build output.
    const sources = ["functions", "web"].flatMap((dir) =>
      existsSync(join(example, dir))
        ? filesUnder(join(example, dir)).map((f) => `${dir}/${f}`)
        : [],
    );
    expect(sources.length).toBeGreaterThan(0);
    for (const file of sources) {
      expect(readFileSync(join(targetDir, file), "utf8"), file).toBe(
        readFileSync(join(example, file), "utf8"),
      );
    }
    for (const left of ["test", "vitest.config.ts", "turbo.json", "public/app.js", ".turbo"]) {
      expect(existsSync(join(targetDir, left)), left).toBe(false);
    }

    const exampleManifest = readJSON(join(example, "svc.json"));
    expect(readJSON(join(targetDir, "svc.json"))).toEqual({
      ...(exampleManifest as object),
      name: "my-app",
    });

    // The example's own package.json says what the app depends on, minus the monorepo's test tools.
    const examplePackage = readJSON(join(example, "package.json")) as {
      scripts?: Record<string, string>;
      dependencies?: Record<string, string>;
      devDependencies?: Record<string, string>;
    };
    const build = examplePackage.scripts?.build;
    const codegen = examplePackage.scripts?.codegen;
    const seed = examplePackage.scripts?.seed;
    expect(info?.build).toBe(build);
    expect(info?.codegen).toBe(codegen);
    expect(info?.seed).toBe(seed);
    const testTools = new Set(["@svc/server", "@svc/tooling", "vitest", "playwright-core"]);
    const dependencies = [...Object.keys(examplePackage.dependencies ?? {}), "@svc/server"];
    const devDependencies = [
      ...Object.keys(examplePackage.devDependencies ?? {}).filter((name) => !testTools.has(name)),
      "@types/node",
      "typescript",
    ];
    const ranges = (names: string[]) =>
      Object.fromEntries(
        [...new Set(names)].sort().map((name) => [name, templates.index.versions[name]]),
      );
    const packageJson = readJSON(join(targetDir, "package.json"));
    expect(packageJson).toEqual({
      name: "my-app",
      version: "0.1.0",
      private: true,
      type: "module",
      scripts: {
        ...(build !== undefined && { build }),
        ...(codegen !== undefined && { codegen }),
        ...(seed !== undefined && { seed }),
        dev: build === undefined ? SERVE : `${build} && ${SERVE}`,
        start: "svc-server",
        test: "svc policy test",
        typecheck: "tsc --noEmit",
      },
      dependencies: ranges(dependencies),
      devDependencies: ranges(devDependencies),
    });
    expect(packageJson).toMatchObject({
      dependencies: { "@svc/server": expect.stringMatching(/^\^\d+\.\d+\.\d+/) },
    });

    const tsconfig = readJSON(join(targetDir, "tsconfig.json"));
    expect(tsconfig).toMatchObject({ compilerOptions: { strict: true, noEmit: true } });
    expect(JSON.stringify(tsconfig)).not.toMatch(/extends|customConditions|"test"/);
    const include = (tsconfig as { include: string[] }).include;
    expect(include).toContain("functions");
    if (existsSync(join(example, "web"))) {
      expect(include).toContain("web");
      expect(tsconfig).toMatchObject({ compilerOptions: { jsx: "react-jsx" } });
    }

    const readme = readFileSync(join(targetDir, "README.md"), "utf8");
    expect(readme).toMatch(/^# my-app\n/);
    expect(readme).toContain(`\`${template}\` template`);
    expect(readme).toContain("npm run dev");
    for (const file of readdirSync(join(example, "functions"))) {
      if (/^[A-Za-z]\w*\.(ts|mts|js|mjs)$/.test(file)) {
        expect(readme).toContain(`\`${file.replace(/\.\w+$/, "")}\``);
      }
    }
    if (needsPnpmSettings) {
      expect(readFileSync(join(targetDir, "pnpm-workspace.yaml"), "utf8")).toContain(
        "allowBuilds:\n  esbuild: false\n",
      );
    }
    const gitignore = readFileSync(join(targetDir, ".gitignore"), "utf8");
    expect(gitignore).toContain(".svc/");
    if (build !== undefined) {
      expect(gitignore).toContain("public/app.js\n");
      expect(readme).toContain("npm run build");
    }
  });

  it("uses the default template when none is named", async () => {
    using temp = tempDir();
    const result = await scaffold({
      targetDir: join(temp.path, "app"),
      templatesDir: templates.dir,
    });
    expect(result.template).toBe("default");
    expect(result.files).toContain("functions/addNote.ts");
  });

  it("accepts an existing empty directory, or one holding only .git", async () => {
    using temp = tempDir();
    const empty = join(temp.path, "empty");
    mkdirSync(empty);
    await expect(
      scaffold({ targetDir: empty, templatesDir: templates.dir }),
    ).resolves.toMatchObject({
      name: "empty",
    });
    const withGit = join(temp.path, "with-git");
    mkdirSync(join(withGit, ".git"), { recursive: true });
    writeFileSync(join(withGit, ".git", "HEAD"), "ref: refs/heads/main\n");
    const result = await scaffold({ targetDir: withGit, templatesDir: templates.dir });
    expect(result.files.some((file) => file.startsWith(".git/"))).toBe(false);
  });

  it("refuses a non-empty target directory and writes nothing", async () => {
    using temp = tempDir();
    const targetDir = join(temp.path, "taken");
    mkdirSync(targetDir);
    writeFileSync(join(targetDir, "notes.txt"), "mine\n");
    await expect(scaffold({ targetDir, templatesDir: templates.dir })).rejects.toMatchObject({
      name: "ScaffoldError",
      code: "TARGET_NOT_EMPTY",
    });
    expect(readdirSync(targetDir)).toEqual(["notes.txt"]);
  });

  it("refuses a target that is a file", async () => {
    using temp = tempDir();
    const targetDir = join(temp.path, "file");
    writeFileSync(targetDir, "");
    await expect(scaffold({ targetDir, templatesDir: templates.dir })).rejects.toMatchObject({
      code: "TARGET_NOT_EMPTY",
      message: expect.stringMatching(/not a directory/),
    });
  });

  it.each(["My App", "UPPER", ".hidden", "node_modules", "http", "a+b"])(
    "refuses the invalid name %j before touching the disk",
    async (name) => {
      using temp = tempDir();
      const targetDir = join(temp.path, name);
      const error = await scaffold({ targetDir, templatesDir: templates.dir }).catch(
        (caught: unknown) => caught,
      );
      expect(error).toBeInstanceOf(ScaffoldError);
      expect(error).toMatchObject({ code: "INVALID_NAME", message: expect.stringContaining(name) });
      expect(existsSync(targetDir)).toBe(false);
    },
  );

  it("makes an edge app with --edge: Worker build, local dev, @svc/edge and miniflare", async () => {
    using temp = tempDir();
    const targetDir = join(temp.path, "edge-app");
    const result = await scaffold({ targetDir, edge: true, templatesDir: templates.dir });
    expect(result.files).toEqual(expect.arrayContaining(["edge-dev.mjs", "svc.json", "README.md"]));
    const packageJson = readJSON(join(targetDir, "package.json")) as {
      scripts: Record<string, string>;
      dependencies: Record<string, string>;
      devDependencies: Record<string, string>;
    };
    expect(packageJson.scripts).toEqual({
      build: "svc build --target edge",
      dev: "svc build --target edge && node edge-dev.mjs",
      test: "svc policy test",
      typecheck: "tsc --noEmit",
    });
    expect(packageJson.dependencies["@svc/edge"]).toBe(templates.index.versions["@svc/edge"]);
    expect(packageJson.devDependencies.miniflare).toBe(templates.index.versions.miniflare);
    const readme = readFileSync(join(targetDir, "README.md"), "utf8");
    expect(readme).toContain("npm run build");
    expect(readme).toContain("npx wrangler deploy");
    expect(readFileSync(join(targetDir, ".gitignore"), "utf8")).toContain("edge/worker.js");
    expect(readFileSync(join(targetDir, "pnpm-workspace.yaml"), "utf8")).toContain(
      "workerd: false",
    );
  });

  it("refuses --edge for a template with a live page (EDGE_UNSUPPORTED) and writes nothing", async () => {
    using temp = tempDir();
    const targetDir = join(temp.path, "app");
    await expect(
      scaffold({ template: "todo", targetDir, edge: true, templatesDir: templates.dir }),
    ).rejects.toMatchObject({ code: "EDGE_UNSUPPORTED" });
    expect(existsSync(targetDir)).toBe(false);
  });

  it("refuses an unknown template and names the available ones", async () => {
    using temp = tempDir();
    const targetDir = join(temp.path, "app");
    await expect(
      scaffold({ template: "nope", targetDir, templatesDir: templates.dir }),
    ).rejects.toMatchObject({
      code: "UNKNOWN_TEMPLATE",
      message: expect.stringMatching(/"nope".*default.*todo/),
    });
    expect(existsSync(targetDir)).toBe(false);
  });

  it.each(["../todo", "todo/..", "index.json", ""])(
    "treats %j as an unknown template, never as a path",
    async (template) => {
      using temp = tempDir();
      await expect(
        scaffold({ template, targetDir: join(temp.path, "app"), templatesDir: templates.dir }),
      ).rejects.toMatchObject({ code: "UNKNOWN_TEMPLATE" });
    },
  );

  it.each([
    ["a missing templates directory", (dir: string) => join(dir, "missing")],
    [
      "a malformed index",
      (dir: string) => {
        writeFileSync(join(dir, "index.json"), '{"versions":{},"templates":[{"name":1}]}');
        return dir;
      },
    ],
    [
      "an index naming a dependency it has no version for",
      (dir: string) => {
        const entry = { name: "x", description: "", dependencies: ["zod"], devDependencies: [] };
        writeFileSync(
          join(dir, "index.json"),
          JSON.stringify({ versions: {}, templates: [entry] }),
        );
        return dir;
      },
    ],
    [
      "an index that is not JSON",
      (dir: string) => {
        writeFileSync(join(dir, "index.json"), "{");
        return dir;
      },
    ],
  ])("reports TEMPLATES_MISSING for %s", async (_case, prepare) => {
    using temp = tempDir();
    const templatesDir = prepare(temp.path);
    await expect(
      scaffold({ targetDir: join(temp.path, "app"), templatesDir }),
    ).rejects.toMatchObject({ code: "TEMPLATES_MISSING" });
  });
});

describe("scaffold with a hand-made templates directory", () => {
  function makeTemplates(root: string, manifest: object, withFunctions: boolean): string {
    const dir = join(root, "templates");
    mkdirSync(join(dir, "mini"), { recursive: true });
    writeFileSync(join(dir, "mini", "svc.json"), JSON.stringify(manifest));
    if (withFunctions) {
      mkdirSync(join(dir, "mini", "fns", ".svc"), { recursive: true });
      writeFileSync(
        join(dir, "mini", "fns", "ping.mjs"),
        "export default query({ handler: () => 'pong' });\n",
      );
      writeFileSync(join(dir, "mini", "fns", ".svc", "data.db"), "");
    }
    writeFileSync(
      join(dir, "index.json"),
      JSON.stringify({
        versions: templates.index.versions,
        templates: [
          {
            name: "mini",
            description: "A tiny one.",
            dependencies: ["@svc/functions", "@svc/server", "zod"],
            devDependencies: ["@types/node", "typescript"],
          },
        ],
      }),
    );
    return dir;
  }

  it("follows the manifest's functions directory and skips local state inside it", async () => {
    using temp = tempDir();
    const templatesDir = makeTemplates(temp.path, { name: "mini", functions: "fns" }, true);
    const targetDir = join(temp.path, "app");
    const result = await scaffold({ template: "mini", targetDir, templatesDir });
    expect(result.files).toEqual([
      ".gitignore",
      "README.md",
      "fns/ping.mjs",
      "package.json",
      "svc.json",
      "tsconfig.json",
    ]);
    expect(readJSON(join(targetDir, "tsconfig.json"))).toMatchObject({ include: ["fns"] });
    expect(readFileSync(join(targetDir, "README.md"), "utf8")).toContain("`ping` (query)");
  });

  it.each([
    ["a functions directory that does not exist", { name: "mini" }, false],
    ["a functions directory outside the template", { name: "mini", functions: "../x" }, true],
  ])("reports TEMPLATES_MISSING for %s", async (_case, manifest, withFunctions) => {
    using temp = tempDir();
    const templatesDir = makeTemplates(temp.path, manifest, withFunctions);
    const targetDir = join(temp.path, "app");
    await expect(scaffold({ template: "mini", targetDir, templatesDir })).rejects.toMatchObject({
      code: "TEMPLATES_MISSING",
    });
    expect(existsSync(targetDir)).toBe(false);
  });
});
