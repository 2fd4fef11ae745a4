import type { Dirent } from "node:fs";
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { AgentDocsError } from "./errors.js";
import { parseFrontMatter } from "./front-matter.js";
import { defaultContentDir, defaultSkillPath } from "./package-paths.js";
import { type DocPageEntry, SEARCH_LIMIT_MAX } from "./schemas.js";
import { createSearchIndex, type DocsSearchIndex } from "./search-index.js";
import { docMarkdownURL, docPageURL, normalizeBaseURL } from "./urls.js";

/** Where {@link loadDocs} reads from. */
export interface LoadDocsOptions {
  /**
   * Directory holding `<section>/<page>.md` files. Default: the package's own
   * `content/` directory (shipped with the published package).
   */
  contentDir?: string;
  /** The authoring guide markdown file. Default: the package's own `skill/SKILL.md`. */
  skillPath?: string;
}

/** One loaded documentation page. */
export interface DocPage {
  /** `<section>/<page>`, no leading slash, no `.md`. */
  path: string;
  title: string;
  summary: string | undefined;
  /** The page as served: the body without front matter, led by a `# title` heading. */
  markdown: string;
}

/**
 * The loaded documentation: every page, its search index and the authoring
 * guide. Immutable once loaded. Methods that build addresses take the public
 * base address (`https://host[/prefix]`); the HTTP layer decides it.
 */
export interface DocsLibrary {
  /** The number of pages. */
  readonly size: number;
  /** Every page entry, ordered by path. */
  list(baseURL: string): DocPageEntry[];
  /**
   * Pages matching the keywords of `query`, best first, at most `limit`
   * (1..50). Throws `AgentDocsError` `INVALID_QUERY` for an empty query or a
   * limit out of range.
   */
  search(query: string, limit: number, baseURL: string): DocPageEntry[];
  /**
   * The markdown of the page at `path`, or undefined when `path` is not
   * exactly one of the listed paths (so `/x`, `x.md` and `../x` never match).
   */
  read(path: string): string | undefined;
  /** The loaded page at `path` (see {@link DocsLibrary.read}), with its title and summary. */
  page(path: string): DocPage | undefined;
  /** The authoring guide markdown, verbatim. */
  skill(): string;
}

const NAME = /^[A-Za-z0-9][A-Za-z0-9_-]*$/;
const LEADING_H1 = /^\s*# \S/;

function contentError(file: string, problem: string, cause?: unknown): AgentDocsError {
  return new AgentDocsError("INVALID_CONTENT", { message: `${file}: ${problem}`, cause });
}

async function listDir(dir: string): Promise<Dirent[]> {
  try {
    return await readdir(dir, { withFileTypes: true });
  } catch (cause) {
    throw new AgentDocsError("CONTENT_NOT_FOUND", {
      message: `The documentation directory ${dir} could not be read.`,
      cause,
    });
  }
}

/** Every `<section>/<page>.md` below `contentDir`, as [path, file] pairs. */
async function findPages(contentDir: string): Promise<Array<[string, string]>> {
  const pages: Array<[string, string]> = [];
  for (const section of await listDir(contentDir)) {
    if (!section.isDirectory() || section.name.startsWith(".")) continue;
    const sectionDir = join(contentDir, section.name);
    for (const entry of await listDir(sectionDir)) {
      if (!entry.isFile() || !entry.name.endsWith(".md") || entry.name.startsWith(".")) continue;
      const file = join(sectionDir, entry.name);
      const page = entry.name.slice(0, -".md".length);
      if (!NAME.test(section.name) || !NAME.test(page)) {
        throw contentError(
          file,
          "section and page names may hold only letters, digits, '-' and '_' and must start with a letter or digit.",
        );
      }
      pages.push([`${section.name}/${page}`, file]);
    }
  }
  return pages.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

async function loadPage(path: string, file: string): Promise<DocPage & { body: string }> {
  return parsePage(path, file, await readText(file, "documentation page"));
}

function parsePage(path: string, file: string, source: string): DocPage & { body: string } {
  let parsed: ReturnType<typeof parseFrontMatter>;
  try {
    parsed = parseFrontMatter(source);
  } catch (cause) {
    throw contentError(file, `malformed front matter (${String(cause)}).`, cause);
  }
  const title = parsed.attributes.title?.trim() ?? "";
  if (title === "") throw contentError(file, "the front matter has no `title`.");
  const summary = parsed.attributes.summary?.trim() || undefined;
  const body = parsed.body.replace(/^\n+/, "");
  const markdown = LEADING_H1.test(body) ? body : `# ${title}\n\n${body}`;
  return { path, title, summary, markdown, body };
}

async function readText(file: string, what: string): Promise<string> {
  try {
    return await readFile(file, "utf8");
  } catch (cause) {
    throw new AgentDocsError("CONTENT_NOT_FOUND", {
      message: `The ${what} ${file} could not be read.`,
      cause,
    });
  }
}

function toEntry(page: DocPage, baseURL: string): DocPageEntry {
  return {
    title: page.title,
    url: docPageURL(baseURL, page.path),
    markdownUrl: docMarkdownURL(baseURL, page.path),
    path: page.path,
    ...(page.summary !== undefined && { summary: page.summary }),
  };
}

function createLibrary(
  pages: readonly DocPage[],
  index: DocsSearchIndex,
  skill: string,
): DocsLibrary {
  const byPath = new Map(pages.map((page) => [page.path, page]));
  return {
    size: pages.length,
    list(baseURL) {
      const base = normalizeBaseURL(baseURL);
      return pages.map((page) => toEntry(page, base));
    },
    search(query, limit, baseURL) {
      if (query.trim() === "") {
        throw new AgentDocsError("INVALID_QUERY", { message: "The search query is empty." });
      }
      if (!Number.isInteger(limit) || limit < 1 || limit > SEARCH_LIMIT_MAX) {
        throw new AgentDocsError("INVALID_QUERY", {
          message: `The search limit must be an integer from 1 to ${SEARCH_LIMIT_MAX}.`,
        });
      }
      const base = normalizeBaseURL(baseURL);
      return index.search(query, limit).flatMap((path) => {
        const page = byPath.get(path);
        return page === undefined ? [] : [toEntry(page, base)];
      });
    },
    read(path) {
      return byPath.get(path)?.markdown;
    },
    page(path) {
      return byPath.get(path);
    },
    skill() {
      return skill;
    },
  };
}

/**
 * Reads every `<section>/<page>.md` of the content directory (files at its
 * top level, other files and deeper folders are ignored), parses each page's
 * front matter (`title` required, `summary` optional), builds the search
 * index and reads the authoring guide. Throws `AgentDocsError`:
 * `INVALID_CONTENT` naming the file for a page without a title, with broken
 * front matter or a name that is not `[A-Za-z0-9_-]`; `CONTENT_NOT_FOUND`
 * when the directory, a page or the guide cannot be read, or there is no page.
 *
 * @example
 * const library = await loadDocs();
 * library.search("api keys", 5, "https://svc.example.com")[0]?.markdownUrl;
 */
export async function loadDocs(options: LoadDocsOptions = {}): Promise<DocsLibrary> {
  const contentDir = options.contentDir ?? defaultContentDir();
  const skillPath = options.skillPath ?? defaultSkillPath();
  const files = await findPages(contentDir);
  if (files.length === 0) {
    throw new AgentDocsError("CONTENT_NOT_FOUND", {
      message: `The documentation directory ${contentDir} holds no <section>/<page>.md file.`,
    });
  }
  const [loaded, skill] = await Promise.all([
    Promise.all(files.map(([path, file]) => loadPage(path, file))),
    readText(skillPath, "authoring guide"),
  ]);
  return libraryOf(loaded, skill);
}

/** The sources of a library held in memory (see {@link createDocsLibrary}). */
export interface DocsSources {
  /** Each page's `<section>/<page>` path and its markdown file's text, front matter included. */
  readonly pages: readonly { readonly path: string; readonly source: string }[];
  /** The authoring guide's markdown. */
  readonly skill: string;
}

/**
 * The library {@link loadDocs} builds, from sources already in memory: for
 * runtimes without a file system (the edge build bundles the pages as
 * strings). Same checks and errors as `loadDocs`, naming the page's path.
 *
 * @example
 * const library = createDocsLibrary({
 *   pages: [{ path: "intro/start", source: "---\ntitle: Start\n---\nHello." }],
 *   skill: "# Guide",
 * });
 * library.read("intro/start"); // "# Start\n\nHello."
 */
export function createDocsLibrary(sources: DocsSources): DocsLibrary {
  const pages = [...sources.pages].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  if (pages.length === 0) {
    throw new AgentDocsError("CONTENT_NOT_FOUND", { message: "The library has no page." });
  }
  for (const { path } of pages) {
    const [section, page, ...rest] = path.split("/");
    if (rest.length > 0 || !NAME.test(section ?? "") || !NAME.test(page ?? "")) {
      throw contentError(
        path,
        "a page path must be <section>/<page> of letters, digits, '-' and '_'.",
      );
    }
  }
  return libraryOf(
    pages.map(({ path, source }) => parsePage(path, path, source)),
    sources.skill,
  );
}

function libraryOf(loaded: readonly (DocPage & { body: string })[], skill: string): DocsLibrary {
  const index = createSearchIndex(
    loaded.map((page) => ({
      path: page.path,
      title: page.title,
      summary: page.summary ?? "",
      body: page.body,
    })),
  );
  const pages = loaded.map(({ body: _body, ...page }) => page);
  return createLibrary(pages, index, skill);
}
