import { z } from "zod";
import { AgentDocsError, quoteForMessage } from "./errors.js";
import type { DocsLibrary } from "./load-docs.js";
import {
  type DocPageEntry,
  docPathSchema,
  docsSearchResultSchema,
  markdownSchema,
  SEARCH_LIMIT_DEFAULT,
  searchLimitSchema,
  searchTextSchema,
  type TemplateEntry,
  templateListSchema,
  templateWordsSchema,
} from "./schemas.js";
import { listTemplates } from "./templates.js";
import { normalizeBaseURL } from "./urls.js";

/**
 * A tool in the shape the generic MCP server registers (structurally; this
 * package does not depend on it). The server validates the arguments with
 * `inputSchema`, calls `handler`, and sends `toText(output)` (or the JSON of
 * the output) as text beside the structured output. A handler error with
 * `expose: true` becomes a tool result with `isError: true` and its message.
 */
export interface AgentDocsTool<TInput extends z.ZodType, TOutput extends z.ZodType> {
  name: string;
  title?: string;
  description: string;
  inputSchema: TInput;
  outputSchema: TOutput;
  handler(input: z.output<TInput>): Promise<z.output<TOutput>>;
  toText?(output: z.output<TOutput>): string;
}

/** Input of `search_svc_docs`. */
export const searchDocsInputSchema = z.object({
  query: searchTextSchema,
  limit: searchLimitSchema.optional(),
});
/** Input of `read_svc_doc`. */
export const readDocInputSchema = z.object({ path: docPathSchema });
/** Input of `list_svc_templates`. */
export const listTemplatesInputSchema = z.object({
  query: templateWordsSchema,
});
/** Input of `get_svc_skill`. */
export const getSkillInputSchema = z.object({});

/** Output of `read_svc_doc`. */
export const readDocOutputSchema = z.object({
  path: z.string(),
  title: z.string(),
  markdown: markdownSchema,
});
/** Output of `get_svc_skill`. */
export const getSkillOutputSchema = z.object({ markdown: markdownSchema });

/** The four agent-docs tools, in the order `agentDocsTools` returns them. */
export type AgentDocsTools = [
  AgentDocsTool<typeof searchDocsInputSchema, typeof docsSearchResultSchema>,
  AgentDocsTool<typeof readDocInputSchema, typeof readDocOutputSchema>,
  AgentDocsTool<typeof listTemplatesInputSchema, typeof templateListSchema>,
  AgentDocsTool<typeof getSkillInputSchema, typeof getSkillOutputSchema>,
];

/** Options of {@link agentDocsTools}. */
export interface AgentDocsToolsOptions {
  /** The public base address the page and markdown URLs are built on. */
  baseURL: string;
}

function pageLines(results: readonly DocPageEntry[]): string {
  return results
    .map((entry) => {
      const summary = entry.summary === undefined ? "" : ` — ${entry.summary}`;
      return `- ${entry.title} (path: ${entry.path})${summary}`;
    })
    .join("\n");
}

function templateLines(templates: readonly TemplateEntry[]): string {
  return templates
    .map((entry) => `- ${entry.name} (\`${entry.command}\`): ${entry.blurb}`)
    .join("\n");
}

/**
 * The MCP tools over a loaded library, named as the spec requires:
 * `search_svc_docs`, `read_svc_doc`, `list_svc_templates`, `get_svc_skill`.
 * Reading a path that is not a listed page throws `AgentDocsError`
 * `DOC_NOT_FOUND` (`expose: true`).
 *
 * @example
 * const tools = agentDocsTools(await loadDocs(), { baseURL: "https://svc.example.com" });
 * const [search] = tools;
 * (await search.handler({ query: "jwt" })).results[0]?.path;
 */
export function agentDocsTools(
  library: DocsLibrary,
  options: AgentDocsToolsOptions,
): AgentDocsTools {
  const baseURL = normalizeBaseURL(options.baseURL);
  return [
    {
      name: "search_svc_docs",
      title: "Search the svc docs",
      description:
        "Search the svc documentation by keywords (titles, paths, summaries, then page text); best match first. Read a result with read_svc_doc and its path.",
      inputSchema: searchDocsInputSchema,
      outputSchema: docsSearchResultSchema,
      async handler(input) {
        const results = library.search(input.query, input.limit ?? SEARCH_LIMIT_DEFAULT, baseURL);
        return { query: input.query, count: results.length, results };
      },
      toText: (output) =>
        output.count === 0
          ? `No svc documentation page matches ${quoteForMessage(output.query)}.`
          : `${output.count} page(s) match ${quoteForMessage(output.query)}:\n${pageLines(output.results)}`,
    },
    {
      name: "read_svc_doc",
      title: "Read an svc doc page",
      description:
        "Read one svc documentation page as markdown, by a path returned by search_svc_docs (such as `getting-started/quick-start`; no leading slash, no .md).",
      inputSchema: readDocInputSchema,
      outputSchema: readDocOutputSchema,
      async handler(input) {
        const page = library.page(input.path);
        if (page === undefined) {
          throw new AgentDocsError("DOC_NOT_FOUND", {
            message: `No svc documentation page has the path ${quoteForMessage(input.path)}; use search_svc_docs to find valid paths.`,
          });
        }
        return { path: page.path, title: page.title, markdown: page.markdown };
      },
      toText: (output) => output.markdown,
    },
    {
      name: "list_svc_templates",
      title: "List svc starter templates",
      description:
        "List the svc starter templates with the exact scaffold command of each; optionally filter by words in the name, description or features.",
      inputSchema: listTemplatesInputSchema,
      outputSchema: templateListSchema,
      async handler(input) {
        const templates = listTemplates(input.query);
        return { count: templates.length, templates };
      },
      toText: (output) =>
        output.count === 0 ? "No svc template matches." : templateLines(output.templates),
    },
    {
      name: "get_svc_skill",
      title: "Get the svc authoring guide",
      description:
        "Get the svc authoring guide as markdown: schema and policy language, server functions, client hooks, rendering, deployment and known pitfalls. Read it before writing an svc app.",
      inputSchema: getSkillInputSchema,
      outputSchema: getSkillOutputSchema,
      async handler() {
        return { markdown: library.skill() };
      },
      toText: (output) => output.markdown,
    },
  ];
}
