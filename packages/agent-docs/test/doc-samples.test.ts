import { existsSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { compilePolicies } from "@svc/policy-engine";
import { parseManifest, SchemaError } from "@svc/schema";
import { describe, expect, it } from "vitest";
import { parseFrontMatter } from "../src/front-matter.js";
import {
  contentDir,
  type DocFile,
  extractFencedBlocks,
  type FencedBlock,
  findDocPathMentions,
  findLinks,
  headingAnchors,
  packageDir,
  readDocFiles,
  type TypeScriptSample,
  typeCheckSamples,
} from "./doc-samples.js";

const docs = readDocFiles();
const pages = docs.filter((doc) => doc.path !== undefined);
const blocks = docs.map((doc) => ({ doc, blocks: extractFencedBlocks(doc.source) }));

function where(doc: DocFile, block: FencedBlock): string {
  return `${doc.label} block ${block.index} (line ${block.line})`;
}

const TYPESCRIPT = new Set(["ts", "typescript", "tsx"]);

const tsSamples: TypeScriptSample[] = blocks.flatMap(({ doc, blocks }) =>
  blocks
    .filter((block) => TYPESCRIPT.has(block.lang) && block.flags.includes("check"))
    .map((block) => ({ where: where(doc, block), code: block.code })),
);

const manifestSamples = blocks.flatMap(({ doc, blocks }) =>
  blocks
    .filter((block) => block.lang === "json" && block.flags.includes("manifest"))
    .map((block) => ({ where: where(doc, block), code: block.code })),
);

describe("documentation pages", () => {
  it("exist, with the pages the docs are expected to have", () => {
    const paths = pages.map((page) => page.path);
    expect(paths).toEqual(
      expect.arrayContaining([
        "getting-started/quick-start",
        "getting-started/concepts",
        "schema/manifest",
        "schema/typescript-dsl",
        "schema/migrations",
        "policies/language",
        "policies/enforcement",
        "functions/writing-functions",
        "functions/context",
        "functions/jobs",
        "store/entities-api",
        "auth/overview",
        "auth/oauth",
        "auth/api-keys-and-jwt",
        "billing/overview",
        "client/overview",
        "files/overview",
        "sync/overview",
        "deployment/running",
        "reference/configuration",
        "reference/errors",
        "agent-api/overview",
      ]),
    );
  });

  it.each(pages.map((page) => [page.path, page] as const))(
    "%s has a lowercase kebab-case path, a title and a one-line summary",
    (_path, page) => {
      expect(page.path).toMatch(/^[a-z0-9]+(?:-[a-z0-9]+)*\/[a-z0-9]+(?:-[a-z0-9]+)*$/);
      const { attributes, body } = parseFrontMatter(page.source);
      expect(attributes.title?.trim(), `${page.label}: title`).toBeTruthy();
      expect(attributes.summary?.trim(), `${page.label}: summary`).toBeTruthy();
      expect(attributes.summary ?? "").not.toContain("\n");
      expect(body.trim(), `${page.label}: body`).not.toBe("");
    },
  );

  it("has a skill with a name and a description, of a useful size", () => {
    const skill = docs.find((doc) => doc.path === undefined);
    const { attributes } = parseFrontMatter(skill?.source ?? "");
    expect(attributes.name?.trim()).toBeTruthy();
    expect(attributes.description?.trim()).toBeTruthy();
    // An agent reads all of it first: at most 64 KB, long reference material
    // lives in the pages it links. Below 40 KB it would have lost the essentials.
    const bytes = Buffer.byteLength(skill?.source ?? "");
    expect(bytes).toBeGreaterThan(40_000);
    expect(bytes).toBeLessThanOrEqual(65_536);
  });

  it("keeps in the skill what an agent needs to write an app without reading further", () => {
    const skill = docs.find((doc) => doc.path === undefined)?.source ?? "";
    const headings = [...headingAnchors(skill)];
    expect(headings).toEqual(
      expect.arrayContaining([
        "1-what-svc-is-and-what-exists",
        "2-app-layout-and-commands",
        "3-the-manifest",
        "4-policy-language",
        "variables",
        "grammar-and-precedence",
        "types",
        "null-semantics-two-valued-identical-in-memory-and-in-sql",
        "patterns",
        "5-how-enforcement-behaves",
        "6-server-functions",
        "ctx",
        "results-and-errors",
        "7-calling-the-api",
        "sign-in",
        "8-testing",
        "9-deployment-and-configuration",
        "10-error-codes",
        "11-known-pitfalls",
        "12-planned-not-built-do-not-call",
      ]),
    );
  });

  it("links only to pages and headings that exist", () => {
    const broken: string[] = [];
    const anchorsOf = new Map<string, Set<string>>();
    const anchors = (file: string): Set<string> => {
      let set = anchorsOf.get(file);
      if (set === undefined) {
        set = headingAnchors(readFileSync(file, "utf8"));
        anchorsOf.set(file, set);
      }
      return set;
    };
    for (const doc of docs) {
      for (const link of findLinks(doc.source)) {
        const at = `${doc.label}:${link.line}: ${link.target}`;
        if (/^[a-z][a-z0-9+.-]*:/i.test(link.target)) continue; // http:, https:, mailto:
        const [target = "", anchor] = link.target.split("#", 2);
        const file = target === "" ? doc.file : resolve(dirname(doc.file), target);
        const inContent = relative(contentDir, file);
        if (target !== "") {
          if (
            !target.endsWith(".md") ||
            inContent.startsWith("..") ||
            inContent.split(sep).length !== 2
          ) {
            broken.push(`${at} (link a page as ../<section>/<page>.md)`);
            continue;
          }
          if (!existsSync(file)) {
            broken.push(`${at} (no such page)`);
            continue;
          }
        }
        if (anchor !== undefined && !anchors(file).has(anchor)) {
          broken.push(`${at} (no heading with anchor #${anchor})`);
        }
      }
    }
    expect(broken).toEqual([]);
  });

  it("names only existing pages when it mentions a doc path such as `policies/language`", () => {
    const paths = new Set(pages.map((page) => page.path));
    const sections = new Set(pages.map((page) => page.path?.split("/")[0] ?? ""));
    const unknown = docs.flatMap((doc) =>
      findDocPathMentions(doc.source, sections)
        .filter((mention) => !paths.has(mention.path))
        .map((mention) => `${doc.label}:${mention.line}: ${mention.path}`),
    );
    expect(unknown).toEqual([]);
  });
});

describe("code samples", () => {
  it("mark every TypeScript block `check` (or, rarely, `nocheck`)", () => {
    const unmarked = blocks.flatMap(({ doc, blocks }) =>
      blocks
        .filter(
          (block) =>
            TYPESCRIPT.has(block.lang) &&
            !block.flags.includes("check") &&
            !block.flags.includes("nocheck"),
        )
        .map((block) => where(doc, block)),
    );
    expect(unmarked).toEqual([]);
  });

  it("have TypeScript samples to check", () => {
    expect(tsSamples.length).toBeGreaterThan(10);
    expect(manifestSamples.length).toBeGreaterThan(3);
  });

  it("type-check: every `ts check` block compiles against the workspace sources", () => {
    expect(typeCheckSamples(tsSamples)).toEqual([]);
  }, 180_000);

  it.each(manifestSamples.map((sample) => [sample.where, sample] as const))(
    "%s is a valid manifest whose policies compile",
    (label, sample) => {
      let json: unknown;
      try {
        json = JSON.parse(sample.code);
      } catch (error) {
        throw new Error(`${label}: not JSON: ${(error as Error).message}`);
      }
      try {
        compilePolicies(parseManifest(json));
      } catch (error) {
        if (error instanceof SchemaError || error instanceof Error) {
          throw new Error(`${label}: ${error.message}`);
        }
        throw error;
      }
    },
  );
});

describe("the samples test itself", () => {
  it("finds samples where the docs are", () => {
    expect(existsSync(join(packageDir, "content"))).toBe(true);
    expect(typeCheckSamples([{ where: "probe", code: "const x: number = 'no';\n" }])).toEqual([
      expect.stringMatching(/^probe sample line 1:7: TS2322 /),
    ]);
  }, 180_000);
});
