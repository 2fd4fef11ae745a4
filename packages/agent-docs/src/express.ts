export { docsSiteRouter } from "./express/docs-site.js";
export {
  type AgentRateLimitOptions,
  createAgentRateLimiter,
  DEFAULT_AGENT_RATE_LIMIT,
} from "./express/rate-limit.js";
export { type AgentApiRouterOptions, agentApiRouter } from "./express/router.js";
export { DOCUMENT_CACHE_CONTROL, strongETag } from "./express/send-document.js";
export { AGENT_API_PREFIX } from "./operations.js";
