import { readFileSync } from "node:fs";
import { agentDocsTools, type DocsLibrary } from "@svc/agent-docs";
import { agentApiRouter, createAgentRateLimiter, docsSiteRouter } from "@svc/agent-docs/express";
import { createMcpServer } from "@svc/mcp-server";
import { mcpExpressHandler } from "@svc/mcp-server/express";
import type { IRouter, Request } from "express";

/** What the agent API and the MCP endpoint are served from. */
export interface AgentRoutesOptions {
  /** svc's own documentation, loaded once at boot. */
  library: DocsLibrary;
  /** Base of the links in responses; each request's host when undefined. */
  publicURL: string | undefined;
  /** Base of the links in MCP tool results, which have no request host to use. */
  toolBaseURL: string;
  /** Origins the MCP endpoint accepts in an `Origin` header; `["*"]` for any. */
  trustedOrigins: readonly string[];
  /** Requests per minute and address for each of the two surfaces. */
  rateLimitPerMinute?: number;
  /** Receives the agent API's unexpected errors (answered 500). Default: logs to stderr. */
  onInternalError?: (error: unknown, req: Request) => void;
}

const INSTRUCTIONS =
  "svc is a self-hostable TypeScript backend framework. Search its documentation with search_svc_docs, read a page with read_svc_doc, list starter apps with list_svc_templates, and fetch the full authoring guide with get_svc_skill before writing a manifest, policies or server functions.";

function serverVersion(): string {
  // dist/*.js and src/http/*.ts both sit one or two levels under the package.
  for (const candidate of ["../package.json", "../../package.json"]) {
    try {
      const parsed: unknown = JSON.parse(readFileSync(new URL(candidate, import.meta.url), "utf8"));
      const { name, version } = parsed as { name?: unknown; version?: unknown };
      if (name === "@svc/server" && typeof version === "string") return version;
    } catch {
      // Try the next candidate.
    }
  }
  return "0.0.0";
}

/**
 * Mounts the public, read-only agent surfaces beside the application API:
 * the agent API under `/agent/v1`, the stateless MCP endpoint at `/mcp`
 * serving the four documentation tools (both rate limited per address), and
 * the human documentation pages under `/docs`.
 */
export function registerAgentRoutes(app: IRouter, options: AgentRoutesOptions): void {
  const rateLimit = { windowMs: 60_000, limit: options.rateLimitPerMinute ?? 300 };
  app.use(
    agentApiRouter({
      library: options.library,
      publicURL: options.publicURL,
      rateLimit,
      ...(options.onInternalError !== undefined && { onInternalError: options.onInternalError }),
    }),
  );
  // The human pages the entries' `url` links to.
  app.use(docsSiteRouter({ library: options.library }));
  const mcp = createMcpServer({
    name: "svc",
    title: "svc documentation",
    version: serverVersion(),
    instructions: INSTRUCTIONS,
    tools: agentDocsTools(options.library, { baseURL: options.toolBaseURL }),
    trustedOrigins: options.trustedOrigins,
  });
  app.all("/mcp", createAgentRateLimiter(rateLimit), mcpExpressHandler(mcp));
}
