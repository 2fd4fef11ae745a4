import { z } from "zod";
import {
  docPathSchema,
  docsListSchema,
  docsSearchResultSchema,
  markdownSchema,
  SEARCH_LIMIT_DEFAULT,
  SEARCH_LIMIT_MAX,
  SEARCH_QUERY_MAX_LENGTH,
  searchTextSchema,
  templateListSchema,
  templateWordsSchema,
} from "./schemas.js";

/** Path prefix of every agent API route. */
export const AGENT_API_PREFIX = "/agent/v1";

/** Query of `GET /agent/v1/docs/search`. */
export const searchQuerySchema = z.object({
  q: searchTextSchema,
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .max(SEARCH_LIMIT_MAX)
    .default(SEARCH_LIMIT_DEFAULT)
    .describe(`Most results to return, 1..${SEARCH_LIMIT_MAX}; default ${SEARCH_LIMIT_DEFAULT}.`),
});

/** Query of `GET /agent/v1/docs/read`. */
export const readQuerySchema = z.object({ path: docPathSchema });

/** Query of `GET /agent/v1/templates`. */
export const templatesQuerySchema = z.object({
  q: templateWordsSchema,
});

/** What a successful response of an operation carries. */
export interface AgentOperationSuccess {
  contentType: "application/json" | "text/markdown";
  schema: z.ZodType;
  description: string;
}

/** One agent API operation: the single description the router and the OpenAPI document share. */
export interface AgentOperation {
  operationId: string;
  path: string;
  method: "get";
  summary: string;
  description: string;
  tag: "docs" | "templates";
  /** Query parameters, validated by the router with this schema. */
  query: z.ZodObject | undefined;
  /** The sentence sent in a 400 envelope for each parameter that fails validation. */
  parameterErrors: Record<string, string>;
  success: AgentOperationSuccess;
  /** Error statuses beyond 429 (every route) that the operation answers. */
  errorStatuses: readonly (400 | 404)[];
}

/** `GET /agent/v1/docs`: the whole index. */
export const listDocsOperation = {
  operationId: "listSvcDocs",
  path: `${AGENT_API_PREFIX}/docs`,
  method: "get",
  summary: "List every documentation page",
  description: "The whole documentation index, ordered by path. `count` equals `results.length`.",
  tag: "docs",
  query: undefined,
  parameterErrors: {},
  success: {
    contentType: "application/json",
    schema: docsListSchema,
    description: "Every page entry.",
  },
  errorStatuses: [],
} as const satisfies AgentOperation;

/** `GET /agent/v1/docs/search`: keyword search. */
export const searchDocsOperation = {
  operationId: "searchSvcDocs",
  path: `${AGENT_API_PREFIX}/docs/search`,
  method: "get",
  summary: "Search the documentation by keyword",
  description:
    "Matches titles, paths and summaries (and, weaker, page bodies) by keyword, with prefix and typo tolerance; best match first.",
  tag: "docs",
  query: searchQuerySchema,
  parameterErrors: {
    q: `The query parameter \`q\` must be given once, with 1 to ${SEARCH_QUERY_MAX_LENGTH} characters of keywords.`,
    limit: `The query parameter \`limit\` must be an integer from 1 to ${SEARCH_LIMIT_MAX}.`,
  },
  success: {
    contentType: "application/json",
    schema: docsSearchResultSchema,
    description: "The matching page entries, best first.",
  },
  errorStatuses: [400],
} as const satisfies AgentOperation;

/** `GET /agent/v1/docs/read`: one page as markdown. */
export const readDocOperation = {
  operationId: "readSvcDoc",
  path: `${AGENT_API_PREFIX}/docs/read`,
  method: "get",
  summary: "Read one documentation page as markdown",
  description:
    "Only paths returned by the list or search operations are accepted: no leading slash, no `.md` suffix.",
  tag: "docs",
  query: readQuerySchema,
  parameterErrors: {
    path: "The query parameter `path` must be given once, as a documentation path such as `getting-started/quick-start`.",
  },
  success: {
    contentType: "text/markdown",
    schema: markdownSchema,
    description: "The page as markdown.",
  },
  errorStatuses: [400, 404],
} as const satisfies AgentOperation;

/** `GET /agent/v1/templates`: the starter templates. */
export const listTemplatesOperation = {
  operationId: "listSvcTemplates",
  path: `${AGENT_API_PREFIX}/templates`,
  method: "get",
  summary: "List the starter templates",
  description:
    "The templates of the scaffold command, optionally filtered by name, description or feature.",
  tag: "templates",
  query: templatesQuerySchema,
  parameterErrors: { q: "The query parameter `q` must be a single string." },
  success: {
    contentType: "application/json",
    schema: templateListSchema,
    description: "The matching template entries.",
  },
  errorStatuses: [400],
} as const satisfies AgentOperation;

/** `GET /agent/v1/skill`: the authoring guide. */
export const getSkillOperation = {
  operationId: "getSvcSkill",
  path: `${AGENT_API_PREFIX}/skill`,
  method: "get",
  summary: "Get the svc authoring guide",
  description:
    "The authoring guide as markdown: schema and policy language, server functions, client hooks, rendering, deployment and known pitfalls.",
  tag: "docs",
  query: undefined,
  parameterErrors: {},
  success: {
    contentType: "text/markdown",
    schema: markdownSchema,
    description: "The authoring guide.",
  },
  errorStatuses: [],
} as const satisfies AgentOperation;

/** The agent API operations served by the router, in the spec's order. */
export const agentOperations: readonly AgentOperation[] = [
  listDocsOperation,
  searchDocsOperation,
  readDocOperation,
  listTemplatesOperation,
  getSkillOperation,
];

/** The operation id of an agent API operation served by the router. */
export type AgentOperationId =
  | typeof listDocsOperation.operationId
  | typeof searchDocsOperation.operationId
  | typeof readDocOperation.operationId
  | typeof listTemplatesOperation.operationId
  | typeof getSkillOperation.operationId;

/** Where the router serves the OpenAPI document (not itself an operation of it). */
export const OPENAPI_PATH = `${AGENT_API_PREFIX}/openapi.json`;
