import { type NextFunction, type Request, type Response, Router } from "express";
import { AgentDocsError, toAgentErrorResponse } from "../errors.js";
import type { DocsLibrary } from "../load-docs.js";
import { createAgentOpenAPIDocument } from "../openapi.js";
import {
  AGENT_API_PREFIX,
  getSkillOperation,
  listDocsOperation,
  listTemplatesOperation,
  OPENAPI_PATH,
  readDocOperation,
  searchDocsOperation,
} from "../operations.js";
import { type AgentRateLimitOptions, createAgentRateLimiter } from "./rate-limit.js";
import { createBaseURLResolver, type RouteContext } from "./request-context.js";
import { getOpenAPIRoute } from "./routes/get-openapi.js";
import { getSkillRoute } from "./routes/get-skill.js";
import { listDocsRoute } from "./routes/list-docs.js";
import { listTemplatesRoute } from "./routes/list-templates.js";
import { readDocRoute } from "./routes/read-doc.js";
import { searchDocsRoute } from "./routes/search-docs.js";

/** Options of {@link agentApiRouter}. */
export interface AgentApiRouterOptions {
  /** The loaded documentation (see `loadDocs`). */
  library: DocsLibrary;
  /**
   * Public base address for the URLs in responses (`SVC_PUBLIC_URL`).
   * Default: each request's protocol and `Host` header.
   */
  publicURL?: string;
  /** The per-address quota, or `false` to leave limiting to a proxy. Default 300 per minute. */
  rateLimit?: AgentRateLimitOptions | false;
  /** Receives unexpected errors (answered 500). Default: logs to stderr. */
  onInternalError?: (error: unknown, req: Request) => void;
}

const EXPOSED_HEADERS = "ETag, RateLimit, RateLimit-Policy, Retry-After";

function logInternalError(error: unknown, req: Request): void {
  console.error(`svc agent API: ${req.method} ${req.originalUrl} failed:`, error);
}

/**
 * The agent API as one express router, to mount at the application root:
 * `GET /agent/v1/docs`, `/docs/search`, `/docs/read`, `/templates`, `/skill`
 * and `/openapi.json`. Public and read-only: responses allow any origin,
 * documents carry a strong `ETag` and `Cache-Control: public, max-age=300`,
 * every request under `/agent/v1` counts against the rate limit, and every
 * error is the `{error:{code,message}}` envelope (`NOT_FOUND` and
 * `METHOD_NOT_ALLOWED` for other paths and methods under `/agent/v1`).
 * Other paths pass through untouched.
 *
 * @example
 * const app = express();
 * app.use(agentApiRouter({ library: await loadDocs(), publicURL: process.env.SVC_PUBLIC_URL }));
 */
export function agentApiRouter(options: AgentApiRouterOptions): Router {
  const context: RouteContext = {
    library: options.library,
    openapi: createAgentOpenAPIDocument(),
    baseURL: createBaseURLResolver(options.publicURL),
  };
  const onInternalError = options.onInternalError ?? logInternalError;
  const router = Router({ caseSensitive: true, strict: false });

  router.use(AGENT_API_PREFIX, (_req: Request, res: Response, next: NextFunction) => {
    res.setHeader("Access-Control-Allow-Origin", "*");
    res.setHeader("Access-Control-Expose-Headers", EXPOSED_HEADERS);
    next();
  });
  if (options.rateLimit !== false) {
    router.use(AGENT_API_PREFIX, createAgentRateLimiter(options.rateLimit));
  }

  const routes = [
    [listDocsOperation.path, listDocsRoute(context)],
    [searchDocsOperation.path, searchDocsRoute(context)],
    [readDocOperation.path, readDocRoute(context)],
    [listTemplatesOperation.path, listTemplatesRoute()],
    [getSkillOperation.path, getSkillRoute(context)],
    [OPENAPI_PATH, getOpenAPIRoute(context)],
  ] as const;
  for (const [path, handler] of routes) {
    router
      .route(path)
      .get(handler)
      .all((_req: Request, res: Response) => {
        res.setHeader("Allow", "GET, HEAD");
        throw new AgentDocsError("METHOD_NOT_ALLOWED");
      });
  }

  router.use(AGENT_API_PREFIX, (_req: Request, _res: Response, next: NextFunction) => {
    next(new AgentDocsError("NOT_FOUND"));
  });
  router.use((error: unknown, req: Request, res: Response, _next: NextFunction) => {
    const { status, body, internal } = toAgentErrorResponse(error);
    if (internal) onInternalError(error, req);
    res.status(status).setHeader("Cache-Control", "no-store").json(body);
  });
  return router;
}
