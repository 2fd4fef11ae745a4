import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { fixtureContentDir, fixtureSkillPath, loadFixtureDocs } from "../test/helpers.js";
import { AgentDocsError } from "./errors.js";
import { createDocsLibrary, loadDocs } from "./load-docs.js";
import { defaultContentDir, defaultSkillPath } from "./package-paths.js";

const BASE = "https://svc.example.com";

describe("loadDocs", () => {
  it("lists every page ordered by path with absolute URLs", async () => {
    const library = await loadFixtureDocs();
    const entries = library.list(`${BASE}/`);
    expect(library.size).toBe(6);
    expect(entries.map((entry) => entry.path)).toEqual([
      "auth/api-keys",
      "auth/jwt",
      "getting-started/introduction",
      "policies/language",
      "policies/membership-checks",
      "schema/manifest",
    ]);
    expect(entries[0]).toEqual({
      title: "API keys",
      url: `${BASE}/docs/auth/api-keys`,
      markdownUrl: `${BASE}/agent/v1/docs/read?path=auth/api-keys`,
      path: "auth/api-keys",
      summary: "Create, list and revoke API keys for server-to-server calls.",
    });
    const manifest = entries.find((entry) => entry.path === "schema/manifest");
    expect(manifest).not.toHaveProperty("summary");
    const language = entries.find((entry) => entry.path === "policies/language");
    expect(language?.summary).toBe(
      "Expressions over auth, data and existing rows that decide every read and write.",
    );
  });

  it("keeps a path prefix of the base URL", async () => {
    const library = await loadFixtureDocs();
    expect(library.list("http://host:8080/svc/")[0]?.markdownUrl).toBe(
      "http://host:8080/svc/agent/v1/docs/read?path=auth/api-keys",
    );
  });

  it("reads a page without its front matter, led by its title", async () => {
    const library = await loadFixtureDocs();
    expect(library.read("auth/jwt")).toMatch(/^# JWT exchange\n\nThe token lifetime/);
    // api-keys.md has no heading of its own: the title is added.
    expect(library.read("auth/api-keys")).toMatch(/^# API keys\n\nKeys start with/);
    expect(library.read("auth/jwt")).not.toContain("summary:");
  });

  it.each([
    "/auth/jwt",
    "auth/jwt.md",
    "auth/../auth/jwt",
    "../package",
    "../../package.json",
    "auth",
    "auth/",
    "AUTH/JWT",
    "auth/jwt/",
    " auth/jwt",
    "auth/unknown",
    "",
  ])("reads nothing for the unlisted path %j", async (path) => {
    const library = await loadFixtureDocs();
    expect(library.read(path)).toBeUndefined();
    expect(library.page(path)).toBeUndefined();
  });

  it("returns the authoring guide verbatim", async () => {
    const library = await loadFixtureDocs();
    expect(library.skill()).toMatch(/^---\nname: svc\n/);
    expect(library.skill()).toContain("# Authoring svc apps");
  });

  it("defaults to the package's own content and skill folders", () => {
    expect(defaultContentDir()).toBe(join(dirname(fixtureContentDir), "../../content/"));
    expect(defaultSkillPath()).toBe(join(dirname(fixtureSkillPath), "../../../skill/SKILL.md"));
  });

  // The package's own pages are written beside this code; they must load.
  it.skipIf(!existsSync(defaultContentDir()) || !existsSync(defaultSkillPath()))(
    "loads the package's own content",
    async () => {
      const library = await loadDocs();
      expect(library.size).toBeGreaterThan(0);
      for (const entry of library.list(BASE)) {
        expect(entry.path).toMatch(/^[A-Za-z0-9][\w-]*\/[A-Za-z0-9][\w-]*$/);
        expect(entry.title.length).toBeGreaterThan(0);
      }
    },
  );
});

describe("loadDocs errors", () => {
  const dirs: string[] = [];
  afterEach(async () => {
    await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
  });

  async function contentWith(files: Record<string, string>): Promise<string> {
    const dir = await mkdtemp(join(tmpdir(), "agent-docs-"));
    dirs.push(dir);
    for (const [name, text] of Object.entries(files)) {
      await mkdir(dirname(join(dir, name)), { recursive: true });
      await writeFile(join(dir, name), text);
    }
    return dir;
  }

  async function loadError(
    contentDir: string,
    skillPath = fixtureSkillPath,
  ): Promise<AgentDocsError> {
    const error = await loadDocs({ contentDir, skillPath }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(AgentDocsError);
    return error as AgentDocsError;
  }

  it("names the file of a page without a title", async () => {
    const dir = await contentWith({
      "guide/good.md": "---\ntitle: Good\n---\n",
      "guide/untitled.md": "---\nsummary: No title here\n---\nbody\n",
    });
    const error = await loadError(dir);
    expect(error.code).toBe("INVALID_CONTENT");
    expect(error.message).toContain(join(dir, "guide/untitled.md"));
    expect(error.message).toContain("title");
    expect(error.expose).toBe(false);
  });

  it.each([
    ["a page without front matter", { "guide/bare.md": "# Bare\n" }, "guide/bare.md"],
    ["an empty title", { "guide/empty.md": "---\ntitle: ''\n---\n" }, "guide/empty.md"],
    ["broken front matter", { "guide/open.md": "---\ntitle: x\n" }, "guide/open.md"],
    ["a page name with a dot", { "guide/v1.2.md": "---\ntitle: x\n---\n" }, "guide/v1.2.md"],
    ["a section name with a space", { "my guide/a.md": "---\ntitle: x\n---\n" }, "my guide/a.md"],
  ])("names the file for %s", async (_name, files, file) => {
    const error = await loadError(await contentWith(files));
    expect(error.code).toBe("INVALID_CONTENT");
    expect(error.message).toContain(file);
  });

  it("ignores top-level files, other extensions, hidden entries and deeper folders", async () => {
    const dir = await contentWith({
      "README.md": "no front matter",
      "guide/page.md": "---\ntitle: Page\n---\n",
      "guide/notes.txt": "text",
      "guide/.draft.md": "draft",
      "guide/images/diagram.md": "not a page",
      ".hidden/page.md": "hidden",
    });
    const library = await loadDocs({ contentDir: dir, skillPath: fixtureSkillPath });
    expect(library.list(BASE).map((entry) => entry.path)).toEqual(["guide/page"]);
  });

  it.each([
    ["a missing content directory", "missing", fixtureSkillPath],
    ["a content directory without pages", "empty", fixtureSkillPath],
    ["a missing authoring guide", "ok", "/nonexistent/SKILL.md"],
  ])("fails with CONTENT_NOT_FOUND for %s", async (_name, kind, skillPath) => {
    const dir = await contentWith(kind === "ok" ? { "a/b.md": "---\ntitle: B\n---\n" } : {});
    const error = await loadError(kind === "missing" ? join(dir, "nope") : dir, skillPath);
    expect(error.code).toBe("CONTENT_NOT_FOUND");
  });
});

describe("createDocsLibrary", () => {
  it("builds from sources in memory the library loadDocs reads from files", async () => {
    const pages: { path: string; source: string }[] = [];
    for (const section of await readdir(fixtureContentDir, { withFileTypes: true })) {
      if (!section.isDirectory()) continue;
      for (const file of await readdir(join(fixtureContentDir, section.name))) {
        if (!file.endsWith(".md")) continue;
        pages.push({
          path: `${section.name}/${file.slice(0, -3)}`,
          source: await readFile(join(fixtureContentDir, section.name, file), "utf8"),
        });
      }
    }
    const fromFiles = await loadFixtureDocs();
    const fromMemory = createDocsLibrary({
      pages: pages.reverse(),
      skill: await readFile(fixtureSkillPath, "utf8"),
    });
    expect(fromMemory.list(BASE)).toEqual(fromFiles.list(BASE));
    expect(fromMemory.search("api keys", 5, BASE)).toEqual(fromFiles.search("api keys", 5, BASE));
    expect(fromMemory.read("auth/jwt")).toBe(fromFiles.read("auth/jwt"));
    expect(fromMemory.skill()).toBe(fromFiles.skill());
  });

  it("refuses an empty library and a path that is not <section>/<page>", () => {
    expect(() => createDocsLibrary({ pages: [], skill: "" })).toThrow(AgentDocsError);
    expect(() =>
      createDocsLibrary({ pages: [{ path: "../x", source: "---\ntitle: X\n---\n" }], skill: "" }),
    ).toThrow(/section/);
  });
});
