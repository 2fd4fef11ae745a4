import {
  AGENT_API_PREFIX,
  AgentDocsError,
  type AgentOperationId,
  agentDocsTools,
  agentOperations,
  createAgentOpenAPIDocument,
  type DocsLibrary,
  listTemplates,
  OPENAPI_PATH,
  toAgentErrorResponse,
} from "@svc/agent-docs";
import { createMcpServer } from "@svc/mcp-server";
import { jsonResponse } from "../http/responses.js";

const MARKDOWN = "text/markdown; charset=utf-8";

const INSTRUCTIONS =
  "svc is a self-hostable TypeScript backend framework. Search its documentation with search_svc_docs, read a page with read_svc_doc, list starter apps with list_svc_templates, and fetch the full authoring guide with get_svc_skill before writing a manifest, policies or server functions.";

function parseQuery(operationId: AgentOperationId, url: URL): Record<string, unknown> {
  const operation = agentOperations.find((candidate) => candidate.operationId === operationId);
  if (operation?.query === undefined) return {};
  const result = operation.query.safeParse(Object.fromEntries(url.searchParams));
  if (result.success) return result.data as Record<string, unknown>;
  const name = String(result.error.issues[0]?.path[0] ?? "");
  const errors = operation.parameterErrors as Record<string, string>;
  throw new AgentDocsError("INVALID_QUERY", {
    ...(Object.hasOwn(errors, name) && { message: errors[name] }),
    cause: result.error,
  });
}

/** The agent API (`/agent/v1/...`) and the MCP endpoint (`/mcp`), over the bundled docs. */
export interface AgentRoutes {
  /** The answer for `request`, or null when the path is not an agent route. */
  handle(request: Request, url: URL): Promise<Response | null>;
}

/**
 * The same read-only surfaces as the server's `registerAgentRoutes`, served
 * from a library built from bundled pages. No rate limit of its own: on
 * Cloudflare, put a rate limiting rule in front of `/agent/` and `/mcp`.
 */
export function createAgentRoutes(options: {
  library: DocsLibrary;
  /** Base of links; each request's origin when undefined. */
  publicURL: string | undefined;
  version: string;
  onInternalError: (error: unknown) => void;
}): AgentRoutes {
  const { library } = options;
  const baseOf = (url: URL): string => options.publicURL ?? url.origin;
  let mcp: ReturnType<typeof createMcpServer> | undefined;
  const mcpFor = (url: URL) => {
    mcp ??= createMcpServer({
      name: "svc",
      title: "svc documentation",
      version: options.version,
      instructions: INSTRUCTIONS,
      tools: agentDocsTools(library, { baseURL: baseOf(url) }),
      trustedOrigins: ["*"],
    });
    return mcp;
  };
  const agent = (url: URL): Response | null => {
    switch (url.pathname) {
      case `${AGENT_API_PREFIX}/docs`: {
        const results = library.list(baseOf(url));
        return jsonResponse({ count: results.length, results });
      }
      case `${AGENT_API_PREFIX}/docs/search`: {
        const { q, limit } = parseQuery("searchSvcDocs", url) as { q: string; limit: number };
        const results = library.search(q, limit, baseOf(url));
        return jsonResponse({ query: q, count: results.length, results });
      }
      case `${AGENT_API_PREFIX}/docs/read`: {
        const { path } = parseQuery("readSvcDoc", url) as { path: string };
        const markdown = library.read(path);
        if (markdown === undefined) {
          throw new AgentDocsError("DOC_NOT_FOUND", {
            message: `No documentation page has the path ${JSON.stringify(path)}; list or search the docs for valid paths.`,
          });
        }
        return new Response(markdown, { headers: { "content-type": MARKDOWN } });
      }
      case `${AGENT_API_PREFIX}/templates`: {
        const { q } = parseQuery("listSvcTemplates", url) as { q?: string };
        const templates = listTemplates(q);
        return jsonResponse({ count: templates.length, templates });
      }
      case `${AGENT_API_PREFIX}/skill`:
        return new Response(library.skill(), { headers: { "content-type": MARKDOWN } });
      case OPENAPI_PATH:
        return jsonResponse(createAgentOpenAPIDocument({ serverURL: baseOf(url) }));
      default:
        return null;
    }
  };
  return {
    async handle(request, url) {
      if (url.pathname === "/mcp") {
        const body =
          request.method === "POST" ? new Uint8Array(await request.arrayBuffer()) : undefined;
        const answer = await mcpFor(url).handle({
          method: request.method,
          headers: Object.fromEntries(request.headers),
          ...(body !== undefined && { body }),
        });
        return new Response(answer.body ?? null, {
          status: answer.status,
          headers: answer.headers,
        });
      }
      if (!url.pathname.startsWith(`${AGENT_API_PREFIX}/`)) return null;
      if (request.method !== "GET" && request.method !== "HEAD") return null;
      try {
        return agent(url);
      } catch (error) {
        const { status, body, internal } = toAgentErrorResponse(error);
        if (internal) options.onInternalError(error);
        return jsonResponse(body, status);
      }
    },
  };
}
