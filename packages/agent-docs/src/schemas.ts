import { z } from "zod";
import { type AgentDocsWireErrorCode, agentDocsErrorCodes, isWireErrorCode } from "./errors.js";

/** Most results one search returns. */
export const SEARCH_LIMIT_MAX = 50;
/** Results a search returns when no limit is given. */
export const SEARCH_LIMIT_DEFAULT = 10;
/** Longest accepted search query, in characters. */
export const SEARCH_QUERY_MAX_LENGTH = 500;

/** A documentation path as the agent API hands it out: `<section>/<page>`. */
export const docPathSchema = z
  .string()
  .min(1)
  .describe(
    "Documentation path `<section>/<page>`: no leading slash, no `.md` suffix. Only paths returned by the list or search operations are accepted.",
  );

/** A search query: trimmed, at least one character. */
export const searchTextSchema = z
  .string()
  .trim()
  .min(1)
  .max(SEARCH_QUERY_MAX_LENGTH)
  .describe("Keywords matched against page titles, paths and summaries (and, weaker, bodies).");

/** Words a template listing is filtered by (the API's `q`, the MCP tool's `query`). */
export const templateWordsSchema = z
  .string()
  .optional()
  .describe("Words that must each occur in the template's id, name, blurb or features.");

/** The number of search results wanted. */
export const searchLimitSchema = z
  .int()
  .min(1)
  .max(SEARCH_LIMIT_MAX)
  .describe(`Most results to return, 1..${SEARCH_LIMIT_MAX}; default ${SEARCH_LIMIT_DEFAULT}.`);

/** One documentation page as the agent API lists it. */
export const docPageEntrySchema = z.object({
  title: z.string().describe("Page title."),
  url: z.url().describe("The human documentation page."),
  markdownUrl: z.url().describe("The same page as markdown; fetch this to read it."),
  path: z
    .string()
    .describe("Documentation path `<section>/<page>`; pass it to the read operation."),
  summary: z.string().optional().describe("One-line summary."),
});

/** One starter template as the agent API lists it. */
export const templateEntrySchema = z.object({
  template: z.string().describe("The value of the scaffold command's `--template` option."),
  name: z.string().describe("Human name."),
  blurb: z.string().describe("What the template contains."),
  shows: z.array(z.string()).describe("Features the template exercises."),
  command: z.string().describe("The exact scaffold command."),
  source: z.url().describe("Source repository address."),
  demo: z.url().optional().describe("Deployed demo, when one exists."),
});

const countSchema = z.int().min(0).describe("The number of entries returned.");

/** `GET /agent/v1/docs`: the whole index. */
export const docsListSchema = z.object({
  count: countSchema,
  results: z.array(docPageEntrySchema),
});

/** `GET /agent/v1/docs/search`: matches, best first. */
export const docsSearchResultSchema = z.object({
  query: z.string().describe("The query as searched (trimmed)."),
  count: countSchema,
  results: z.array(docPageEntrySchema),
});

/** `GET /agent/v1/templates`: the (filtered) starter templates. */
export const templateListSchema = z.object({
  count: countSchema,
  templates: z.array(templateEntrySchema),
});

/** A markdown document (a page or the authoring guide). */
export const markdownSchema = z.string().describe("Markdown text.");

const wireCodes: AgentDocsWireErrorCode[] =
  Object.keys(agentDocsErrorCodes).filter(isWireErrorCode);

/** The error envelope of every agent API error response. */
export const errorEnvelopeSchema = z.object({
  error: z.object({
    code: z.enum(wireCodes).describe("Stable error code."),
    message: z.string().describe("One sentence."),
  }),
});

/** A documentation page entry. */
export type DocPageEntry = z.infer<typeof docPageEntrySchema>;
/** A starter template entry. */
export type TemplateEntry = z.infer<typeof templateEntrySchema>;
/** The body of `GET /agent/v1/docs`. */
export type DocsList = z.infer<typeof docsListSchema>;
/** The body of `GET /agent/v1/docs/search`. */
export type DocsSearchResult = z.infer<typeof docsSearchResultSchema>;
/** The body of `GET /agent/v1/templates`. */
export type TemplateList = z.infer<typeof templateListSchema>;
