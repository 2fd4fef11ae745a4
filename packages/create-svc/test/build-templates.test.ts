import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { buildTemplates, parseCatalog } from "../scripts/build-templates.js";
import { readTemplatesIndex } from "../src/templates.js";
import { tempDir, WORKSPACE_ROOT } from "./helpers.js";

function write(path: string, content: string): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, content);
}

function readVersion(path: string): string {
  const manifest: unknown = JSON.parse(readFileSync(path, "utf8"));
  if (typeof manifest === "object" && manifest !== null && "version" in manifest) {
    return String(manifest.version);
  }
  throw new Error(`${path} has no version`);
}

/** A tiny monorepo: one example with local state beside its functions. */
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
      "",
      "allowBuilds:",
      "  esbuild: false",
    ].join("\n"),
  );
  write(
    join(root, "packages/functions/package.json"),
    '{"name":"@svc/functions","version":"1.2.3"}',
  );
  write(join(root, "apps/server/package.json"), '{"name":"@svc/server","version":"2.0.0"}');
  const example = join(root, "examples/notes");
  write(join(example, "svc.json"), '{"manifest_version":1,"name":"notes","functions":"fns"}');
  write(join(example, "package.json"), '{"name":"@x/notes","description":"Some notes."}');
  write(join(example, "fns/addNote.ts"), "export default {};\n");
  write(join(example, "fns/nested/helper.ts"), "export const x = 1;\n");
  write(join(example, "fns/node_modules/dep/index.js"), "");
  write(join(example, "node_modules/zod/package.json"), "{}");
  write(join(example, ".svc/data.db"), "");
  write(join(example, "dist/index.js"), "");
  write(join(root, "examples/not-an-app/README.md"), "no manifest here\n");
}

describe("buildTemplates", () => {
  it("copies each example's manifest and functions, and nothing else", async () => {
    using temp = tempDir();
    fakeWorkspace(temp.path);
    const outDir = join(temp.path, "out");
    const index = await buildTemplates({ workspaceRoot: temp.path, outDir });

    expect(index.templates).toEqual([{ name: "notes", description: "Some notes." }]);
    expect(existsSync(join(outDir, "notes/svc.json"))).toBe(true);
    expect(existsSync(join(outDir, "notes/fns/addNote.ts"))).toBe(true);
    expect(existsSync(join(outDir, "notes/fns/nested/helper.ts"))).toBe(true);
    for (const skipped of ["fns/node_modules", "node_modules", ".svc", "dist", "package.json"]) {
      expect(existsSync(join(outDir, "notes", skipped)), skipped).toBe(false);
    }
    expect(existsSync(join(outDir, "not-an-app"))).toBe(false);
  });

  it("takes workspace package versions as caret ranges and the rest from the catalog", async () => {
    using temp = tempDir();
    fakeWorkspace(temp.path);
    const outDir = join(temp.path, "out");
    await buildTemplates({ workspaceRoot: temp.path, outDir });

    expect(await readTemplatesIndex(outDir)).toEqual({
      versions: {
        "@svc/functions": "^1.2.3",
        "@svc/server": "^2.0.0",
        zod: "^4.7.0",
        "@types/node": "^24.1.0",
        typescript: "~5.9.3",
      },
      templates: [{ name: "notes", description: "Some notes." }],
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

  it("builds default and todo from this repository at its current versions", async () => {
    using temp = tempDir();
    const index = await buildTemplates({ workspaceRoot: WORKSPACE_ROOT, outDir: temp.path });
    const names = index.templates.map((template) => template.name);
    expect(names).toEqual(expect.arrayContaining(["default", "todo"]));
    const server = readVersion(join(WORKSPACE_ROOT, "apps/server/package.json"));
    const functions = readVersion(join(WORKSPACE_ROOT, "packages/functions/package.json"));
    expect(index.versions["@svc/server"]).toBe(`^${server}`);
    expect(index.versions["@svc/functions"]).toBe(`^${functions}`);
    expect(index.versions.zod).toMatch(/^[\^~]?\d/);
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
