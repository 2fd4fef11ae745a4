import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";

/** The agent-docs package directory. */
export const packageDir = resolve(dirname(fileURLToPath(import.meta.url)), "..");
/** The documentation pages: `content/<section>/<page>.md`. */
export const contentDir = join(packageDir, "content");
/** The authoring guide. */
export const skillPath = join(packageDir, "skill", "SKILL.md");
const repoRoot = resolve(packageDir, "../..");

/** One markdown file of the docs: a page (with its `<section>/<page>` path) or the skill. */
export interface DocFile {
  /** Path relative to the package, for messages: `content/policies/language.md`. */
  readonly label: string;
  readonly file: string;
  /** `<section>/<page>` for pages; undefined for the skill. */
  readonly path: string | undefined;
  readonly source: string;
}

/** One fenced code block. */
export interface FencedBlock {
  /** 1-based position among the file's fenced blocks. */
  readonly index: number;
  /** 1-based line of the opening fence. */
  readonly line: number;
  /** The language: the first word of the info string (`ts`). */
  readonly lang: string;
  /** The other words of the info string (`check`, `manifest`, `nocheck`). */
  readonly flags: readonly string[];
  readonly code: string;
}

/** Every page below `content/` plus the skill, pages ordered by path. */
export function readDocFiles(): DocFile[] {
  const pages: DocFile[] = [];
  for (const section of readdirSync(contentDir, { withFileTypes: true })) {
    if (!section.isDirectory()) continue;
    for (const entry of readdirSync(join(contentDir, section.name), { withFileTypes: true })) {
      if (!entry.isFile() || !entry.name.endsWith(".md")) continue;
      const file = join(contentDir, section.name, entry.name);
      pages.push({
        label: relative(packageDir, file).split(sep).join("/"),
        file,
        path: `${section.name}/${entry.name.slice(0, -".md".length)}`,
        source: readFileSync(file, "utf8"),
      });
    }
  }
  pages.sort((a, b) => (a.label < b.label ? -1 : 1));
  const skill: DocFile = {
    label: "skill/SKILL.md",
    file: skillPath,
    path: undefined,
    source: readFileSync(skillPath, "utf8"),
  };
  return [...pages, skill];
}

const FENCE_OPEN = /^ {0,3}(`{3,}|~{3,})([^`]*)$/;
const FENCE_CLOSE = /^ {0,3}(`{3,}|~{3,})\s*$/;

/** Whether `line` closes a block opened with `fence`: same character, at least as long. */
function closes(line: string, fence: string): boolean {
  const close = FENCE_CLOSE.exec(line)?.[1];
  return close !== undefined && close[0] === fence[0] && close.length >= fence.length;
}

/** The markdown's lines, each marked as prose or as part of a fenced block (fences included). */
function classifyLines(markdown: string): { text: string; code: boolean }[] {
  const out: { text: string; code: boolean }[] = [];
  let fence: string | undefined;
  for (const text of markdown.replace(/\r\n?/g, "\n").split("\n")) {
    if (fence === undefined) {
      const open = FENCE_OPEN.exec(text)?.[1];
      if (open !== undefined) fence = open;
      out.push({ text, code: open !== undefined });
    } else {
      if (closes(text, fence)) fence = undefined;
      out.push({ text, code: true });
    }
  }
  return out;
}

/** The fenced code blocks of a markdown text, in order. An unclosed fence throws. */
export function extractFencedBlocks(markdown: string): FencedBlock[] {
  const lines = markdown.replace(/\r\n?/g, "\n").split("\n");
  const blocks: FencedBlock[] = [];
  for (let i = 0; i < lines.length; i += 1) {
    const open = FENCE_OPEN.exec(lines[i] ?? "");
    if (open === null) continue;
    const fence = open[1] ?? "```";
    const [lang = "", ...flags] = (open[2] ?? "").trim().split(/\s+/).filter(Boolean);
    const start = i;
    const body: string[] = [];
    for (i += 1; i < lines.length && !closes(lines[i] ?? "", fence); i += 1) {
      body.push(lines[i] ?? "");
    }
    if (i >= lines.length) throw new Error(`the fence opened on line ${start + 1} is never closed`);
    blocks.push({
      index: blocks.length + 1,
      line: start + 1,
      lang: lang.toLowerCase(),
      flags,
      code: `${body.join("\n")}\n`,
    });
  }
  return blocks;
}

/** The `[text](target)` links of a markdown text outside code, with their lines. */
export function findLinks(markdown: string): { target: string; line: number }[] {
  const links: { target: string; line: number }[] = [];
  classifyLines(markdown).forEach(({ text, code }, i) => {
    if (code) return;
    const prose = text.replace(/(`+)[^`]*?\1/g, "");
    for (const match of prose.matchAll(/\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
      links.push({ target: match[1] ?? "", line: i + 1 });
    }
  });
  return links;
}

/**
 * Inline-code mentions in prose that look like a doc path of one of
 * `sections` (`policies/language`), with their lines: the way the skill and
 * pages name pages for the read operation.
 */
export function findDocPathMentions(
  markdown: string,
  sections: ReadonlySet<string>,
): { path: string; line: number }[] {
  const mentions: { path: string; line: number }[] = [];
  classifyLines(markdown).forEach(({ text, code }, i) => {
    if (code) return;
    for (const match of text.matchAll(/`([a-z0-9-]+)\/([a-z0-9-]+)`/g)) {
      if (sections.has(match[1] ?? "")) {
        mentions.push({ path: `${match[1]}/${match[2]}`, line: i + 1 });
      }
    }
  });
  return mentions;
}

/** The GitHub-style anchors of a markdown text's headings (`## Owner fields` -> `owner-fields`). */
export function headingAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const { text, code } of classifyLines(markdown)) {
    const heading = code ? null : /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(text);
    if (heading === null) continue;
    const base = (heading[1] ?? "")
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, "")
      .trim()
      .replace(/\s/g, "-");
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count === 0 ? base : `${base}-${count}`);
  }
  return anchors;
}

/** A `ts check` block to compile, and where it came from. */
export interface TypeScriptSample {
  /** `content/policies/enforcement.md block 4 (line 120)`. */
  readonly where: string;
  readonly code: string;
}

/**
 * The compiler options of the workspace (`tooling/tsconfig/base.json`: strict,
 * NodeNext, the `@svc/source` condition so `@svc/*` imports resolve to the
 * packages' TypeScript source). `@svc/server` is an app no package may depend
 * on, so it is mapped to its source with `paths` instead of a dependency;
 * `@svc/client` (the client page's samples), auth-core's and sync's entry
 * points (the modules page's) are mapped the same way, as this package has
 * no reason to depend on them.
 */
function compilerOptions(): ts.CompilerOptions {
  const configPath = join(repoRoot, "tooling", "tsconfig", "base.json");
  const config = ts.readConfigFile(configPath, (file) => ts.sys.readFile(file));
  if (config.error !== undefined) {
    throw new Error(ts.flattenDiagnosticMessageText(config.error.messageText, "\n"));
  }
  const parsed = ts.parseJsonConfigFileContent(
    { ...config.config, files: [] },
    ts.sys,
    dirname(configPath),
  );
  return {
    ...parsed.options,
    noEmit: true,
    declaration: false,
    paths: {
      "@svc/server": [join(repoRoot, "apps", "server", "src", "index.ts")],
      "@svc/client": [join(repoRoot, "packages", "client", "src", "index.ts")],
      // The modules page composes packages this one does not depend on.
      "@svc/auth-core/express": [join(repoRoot, "packages", "auth-core", "src", "express.ts")],
      "@svc/sync": [join(repoRoot, "packages", "sync", "src", "index.ts")],
      "@svc/sync/express": [join(repoRoot, "packages", "sync", "src", "express.ts")],
    },
  };
}

/**
 * Type-checks every sample as its own ES module inside this package (so its
 * imports resolve from here) and returns one line per error, each naming the
 * markdown file, block number and line. An empty array means every sample
 * compiles.
 */
export function typeCheckSamples(samples: readonly TypeScriptSample[]): string[] {
  const options = compilerOptions();
  const virtualDir = join(packageDir, ".doc-samples");
  const files = new Map<string, TypeScriptSample>();
  samples.forEach((sample, i) => {
    files.set(join(virtualDir, `sample-${i + 1}.ts`), sample);
  });
  // `export {}` keeps a sample without imports a module, so samples never share a scope.
  const text = (file: string): string | undefined => {
    const sample = files.get(resolve(file));
    return sample === undefined ? undefined : `${sample.code}\nexport {};\n`;
  };
  const host = ts.createCompilerHost(options, true);
  const getSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (fileName, languageVersion, onError, shouldCreate) => {
    const source = text(fileName);
    return source === undefined
      ? getSourceFile(fileName, languageVersion, onError, shouldCreate)
      : ts.createSourceFile(fileName, source, languageVersion, true);
  };
  host.fileExists = (fileName) => files.has(resolve(fileName)) || ts.sys.fileExists(fileName);
  host.readFile = (fileName) => text(fileName) ?? ts.sys.readFile(fileName);

  const program = ts.createProgram({ rootNames: [...files.keys()], options, host });
  const problems: string[] = [];
  const global = program.getOptionsDiagnostics().concat(program.getGlobalDiagnostics());
  for (const diagnostic of global) {
    problems.push(`compiler: ${ts.flattenDiagnosticMessageText(diagnostic.messageText, "\n")}`);
  }
  for (const [fileName, sample] of files) {
    const sourceFile = program.getSourceFile(fileName);
    if (sourceFile === undefined) {
      problems.push(`${sample.where}: the sample was not compiled`);
      continue;
    }
    const diagnostics = [
      ...program.getSyntacticDiagnostics(sourceFile),
      ...program.getSemanticDiagnostics(sourceFile),
    ];
    for (const diagnostic of diagnostics) {
      const position =
        diagnostic.start === undefined
          ? ""
          : (() => {
              const { line, character } = sourceFile.getLineAndCharacterOfPosition(
                diagnostic.start,
              );
              return ` sample line ${line + 1}:${character + 1}`;
            })();
      const message = ts.flattenDiagnosticMessageText(diagnostic.messageText, "\n  ");
      problems.push(`${sample.where}${position}: TS${diagnostic.code} ${message}`);
    }
  }
  return problems;
}
