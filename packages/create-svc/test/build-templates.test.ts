import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, relative, sep } from "node:path";
import { describe, expect, it } from "vitest";
import { buildTemplates, parseCatalog } from "../scripts/build-templates.js";
import { readTemplatesIndex } from "../src/templates.js";
import { tempDir, WORKSPACE_ROOT } from "./helpers.js";

function write(path: string, content: string): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, content);
}

/** The examples with a manifest: every one is a template. */
const EXAMPLES = readdirSync(join(WORKSPACE_ROOT, "examples"))
  .filter((name) => existsSync(join(WORKSPACE_ROOT, "examples", name, "svc.json")))
  .sort();

function readJSON(path: string): unknown {
  return JSON.parse(readFileSync(path, "utf8"));
}

function readVersion(path: string): string {
  const manifest: unknown = JSON.parse(readFileSync(path, "utf8"));
  if (typeof manifest === "object" && manifest !== null && "version" in manifest) {
    return String(manifest.version);
  }
  throw new Error(`${path} has no version`);
}

const WEB_BUILD = "esbuild web/main.tsx --bundle --format=esm --sourcemap --outfile=public/app.js";

/**
 * A tiny monorepo: `notes`, functions only, with local state beside them;
 * `board`, with a React front end, tests and monorepo config.
 */
function fakeWorkspace(root: string): void {
  write(
    join(root, "pnpm-workspace.yaml"),
    [
      "packages:",
      "  - packages/*",
      "",
      "catalog:",
      '  "@types/node": ^24.1.0',
      "  # a comment",
      "  typescript: ~5.9.3",
      "  zod: '^4.7.0'",
      "  react: ^19.3.1",
      "  esbuild: ^0.28.2",
      "  vitest: ^5.1.1",
      "",
      "allowBuilds:",
      "  esbuild: false",
    ].join("\n"),
  );
  write(
    join(root, "packages/functions/package.json"),
    '{"name":"@svc/functions","version":"1.2.3"}',
  );
  write(join(root, "packages/client/package.json"), '{"name":"@svc/client","version":"1.5.0"}');
  write(join(root, "apps/server/package.json"), '{"name":"@svc/server","version":"2.0.0"}');
  write(join(root, "tooling/package.json"), '{"name":"@svc/tooling","version":"0.0.0"}');

  const notes = join(root, "examples/notes");
  write(join(notes, "svc.json"), '{"manifest_version":1,"name":"notes","functions":"fns"}');
  write(
    join(notes, "package.json"),
    JSON.stringify({
      name: "@x/notes",
      description: "Some notes.",
      dependencies: { "@svc/functions": "workspace:*", zod: "catalog:" },
      devDependencies: { typescript: "catalog:" },
    }),
  );
  write(join(notes, "fns/addNote.ts"), "export default {};\n");
  write(join(notes, "fns/nested/helper.ts"), "export const x = 1;\n");
  write(join(notes, "fns/node_modules/dep/index.js"), "");
  write(join(notes, "node_modules/zod/package.json"), "{}");
  write(join(notes, ".svc/data.db"), "");
  write(join(notes, "dist/index.js"), "");

  const board = join(root, "examples/board");
  write(join(board, "svc.json"), '{"manifest_version":1,"name":"board"}');
  write(
    join(board, "package.json"),
    JSON.stringify({
      name: "@x/board",
      description: "A board with a page.",
      scripts: { build: WEB_BUILD, codegen: "svc codegen --out web/api.ts", test: "vitest run" },
      dependencies: {
        "@svc/client": "workspace:*",
        "@svc/functions": "workspace:*",
        react: "catalog:",
        zod: "catalog:",
      },
      devDependencies: {
        "@svc/server": "workspace:*",
        "@svc/tooling": "workspace:*",
        esbuild: "catalog:",
        typescript: "catalog:",
        vitest: "catalog:",
      },
    }),
  );
  write(
    join(board, "tsconfig.json"),
    JSON.stringify({
      extends: "../../tooling/tsconfig/base.json",
      compilerOptions: { jsx: "react-jsx", lib: ["ES2023", "DOM"], customConditions: ["x"] },
      include: ["functions", "web", "test"],
    }),
  );
  write(join(board, "functions/listCards.ts"), "export default {};\n");
  write(join(board, "web/main.tsx"), "export {};\n");
  write(join(board, "public/index.html"), "<!doctype html>\n");
  write(join(board, "public/style.css"), "body {}\n");
  write(join(board, "public/app.js"), "built");
  write(join(board, "public/app.js.map"), "{}");
  write(join(board, "seed/cards.json"), "{}");
  write(join(board, "test/board.test.ts"), "");
  write(join(board, "vitest.config.ts"), "");
  write(join(board, "turbo.json"), "{}");
  write(join(board, "README.md"), "# board\n");
  write(join(board, ".turbo/turbo-build.log"), "");

  write(join(root, "examples/not-an-app/README.md"), "no manifest here\n");
}

/** Every file under `dir`, relative and sorted. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(dir, join(entry.parentPath, entry.name)).split(sep).join("/"))
    .sort();
}

describe("buildTemplates", () => {
  it("copies each example's sources, and not its tests, config, state or build output", async () => {
    using temp = tempDir();
    fakeWorkspace(temp.path);
    const outDir = join(temp.path, "out");
    await buildTemplates({ workspaceRoot: temp.path, outDir });

    expect(readdirSync(outDir).sort()).toEqual(["board", "index.json", "notes"]);
    expect(filesUnder(join(outDir, "notes"))).toEqual([
      "fns/addNote.ts",
      "fns/nested/helper.ts",
      "svc.json",
      "tsconfig.json",
    ]);
    expect(filesUnder(join(outDir, "board"))).toEqual([
      "functions/listCards.ts",
      "public/index.html",
      "public/style.css",
      "seed/cards.json",
      "svc.json",
      "tsconfig.json",
      "web/main.tsx",
    ]);
    expect(readFileSync(join(outDir, "board/web/main.tsx"), "utf8")).toBe("export {};\n");
  });

  it("writes a standalone tsconfig: the example's options and directories, no extends", async () => {
    using temp = tempDir();
    fakeWorkspace(temp.path);
    const outDir = join(temp.path, "out");
    await buildTemplates({ workspaceRoot: temp.path, outDir });

    const board = readJSON(join(outDir, "board/tsconfig.json"));
    expect(board).toEqual({
      compilerOptions: expect.objectContaining({
        jsx: "react-jsx",
        lib: ["ES2023", "DOM"],
        module: "NodeNext",
        strict: true,
      }),
      include: ["functions", "web"],
    });
    expect(JSON.stringify(board)).not.toMatch(/extends|customConditions/);
    // No tsconfig in the example: the functions directory its manifest names.
    expect(readJSON(join(outDir, "notes/tsconfig.json"))).toMatchObject({
      include: ["fns"],
      compilerOptions: { lib: ["ES2023"] },
    });
  });

  it("indexes each template's dependencies, build and description", async () => {
    using temp = tempDir();
    fakeWorkspace(temp.path);
    const outDir = join(temp.path, "out");
    await buildTemplates({ workspaceRoot: temp.path, outDir });

    expect(await readTemplatesIndex(outDir)).toEqual({
      versions: {
        "@svc/client": "^1.5.0",
        "@svc/functions": "^1.2.3",
        "@svc/server": "^2.0.0",
        "@types/node": "^24.1.0",
        esbuild: "^0.28.2",
        react: "^19.3.1",
        typescript: "~5.9.3",
        zod: "^4.7.0",
      },
      templates: [
        {
          name: "board",
          description: "A board with a page.",
          // @svc/server is the app's runtime even where the example keeps it for its tests.
          dependencies: ["@svc/client", "@svc/functions", "@svc/server", "react", "zod"],
          // The monorepo's test tooling (@svc/tooling, vitest) stays behind.
          devDependencies: ["@types/node", "esbuild", "typescript"],
          build: WEB_BUILD,
          codegen: "svc codegen --out web/api.ts",
        },
        {
          name: "notes",
          description: "Some notes.",
          dependencies: ["@svc/functions", "@svc/server", "zod"],
          devDependencies: ["@types/node", "typescript"],
        },
      ],
    });
  });

  it("empties the output directory first", async () => {
    using temp = tempDir();
    fakeWorkspace(temp.path);
    const outDir = join(temp.path, "out");
    write(join(outDir, "stale/svc.json"), "{}");
    await buildTemplates({ workspaceRoot: temp.path, outDir });
    expect(existsSync(join(outDir, "stale"))).toBe(false);
  });

  it("refuses an example whose dependency has no range to publish", async () => {
    using temp = tempDir();
    fakeWorkspace(temp.path);
    write(
      join(temp.path, "examples/notes/package.json"),
      JSON.stringify({ dependencies: { "left-pad": "link:../left-pad" } }),
    );
    await expect(
      buildTemplates({ workspaceRoot: temp.path, outDir: join(temp.path, "out") }),
    ).rejects.toThrow(/left-pad/);
  });

  it("builds every example of this repository at its current versions", async () => {
    using temp = tempDir();
    const index = await buildTemplates({ workspaceRoot: WORKSPACE_ROOT, outDir: temp.path });
    const names = index.templates.map((template) => template.name);
    expect(names).toEqual(EXAMPLES);
    const server = readVersion(join(WORKSPACE_ROOT, "apps/server/package.json"));
    const functions = readVersion(join(WORKSPACE_ROOT, "packages/functions/package.json"));
    expect(index.versions["@svc/server"]).toBe(`^${server}`);
    expect(index.versions["@svc/functions"]).toBe(`^${functions}`);
    expect(index.versions.zod).toMatch(/^[\^~]?\d/);
    // What an app made with --edge adds.
    expect(index.versions["@svc/edge"]).toMatch(/^\^\d/);
    expect(index.versions.miniflare).toMatch(/^[\^~]?\d/);
    for (const template of index.templates) {
      expect(template.dependencies, template.name).toEqual(
        expect.arrayContaining(["@svc/functions", "@svc/server"]),
      );
      // The generated app's `npm test` runs them (`svc policy test`).
      expect(existsSync(join(temp.path, template.name, "policies.test.json")), template.name).toBe(
        true,
      );
      // Whatever builds a front end is installed with the app.
      if (template.build !== undefined) {
        expect(template.devDependencies, template.name).toContain("esbuild");
        expect(existsSync(join(temp.path, template.name, "public/index.html"))).toBe(true);
      }
    }
  });
});

describe("parseCatalog", () => {
  it("reads the flat default catalog and stops at the next top-level key", () => {
    const catalog = parseCatalog(
      'packages:\n  - a\ncatalog:\n  "@scope/x": ^1.0.0\n  y: "~2.0.0"\n\n  z: 3.0.0 # pinned\nother:\n  w: 1\n',
    );
    expect(Object.fromEntries(catalog)).toEqual({ "@scope/x": "^1.0.0", y: "~2.0.0", z: "3.0.0" });
  });
});
