export {
  AgentDocsError,
  type AgentDocsErrorCode,
  type AgentDocsWireErrorCode,
  type AgentErrorEnvelope,
  agentDocsErrorCodes,
  isWireErrorCode,
  toAgentErrorResponse,
} from "./errors.js";
export { type FrontMatterDocument, parseFrontMatter } from "./front-matter.js";
export {
  createDocsLibrary,
  type DocPage,
  type DocsLibrary,
  type DocsSources,
  type LoadDocsOptions,
  loadDocs,
} from "./load-docs.js";
export {
  type AgentDocsTool,
  type AgentDocsTools,
  type AgentDocsToolsOptions,
  agentDocsTools,
  getSkillInputSchema,
  getSkillOutputSchema,
  listTemplatesInputSchema,
  readDocInputSchema,
  readDocOutputSchema,
  searchDocsInputSchema,
} from "./mcp-tools.js";
export {
  type AgentOpenAPIOptions,
  createAgentOpenAPIDocument,
  type JSONSchemaObject,
  type OpenAPIDocument,
  type OpenAPIOperation,
  type OpenAPIParameter,
  type OpenAPIResponse,
} from "./openapi.js";
export {
  AGENT_API_PREFIX,
  type AgentOperation,
  type AgentOperationId,
  type AgentOperationSuccess,
  agentOperations,
  OPENAPI_PATH,
  readQuerySchema,
  searchQuerySchema,
  templatesQuerySchema,
} from "./operations.js";
export { defaultContentDir, defaultSkillPath } from "./package-paths.js";
export {
  type DocPageEntry,
  type DocsList,
  type DocsSearchResult,
  docPageEntrySchema,
  docPathSchema,
  docsListSchema,
  docsSearchResultSchema,
  errorEnvelopeSchema,
  markdownSchema,
  SEARCH_LIMIT_DEFAULT,
  SEARCH_LIMIT_MAX,
  SEARCH_QUERY_MAX_LENGTH,
  searchLimitSchema,
  searchTextSchema,
  type TemplateEntry,
  type TemplateList,
  templateEntrySchema,
  templateListSchema,
} from "./schemas.js";
export {
  listTemplates,
  SVC_REPOSITORY_URL,
  scaffoldCommand,
  svcTemplates,
  templateSourceURL,
} from "./templates.js";
export { docMarkdownURL, docPageURL, normalizeBaseURL } from "./urls.js";
