import { createDocsLibrary, type DocsSources } from "@svc/agent-docs";
import { type Auth, createAuth } from "@svc/auth-core";
import { createFunctionRunner, type FunctionRegistry, type FunctionRunner } from "@svc/functions";
import { type Manifest, parseManifest } from "@svc/schema";
import { createStore, type EntityTables, type Store, sqliteDialect } from "@svc/store";
import { openD1 } from "./d1/d1-dialect.js";
import { type EdgeConfig, type EdgeEnv, parseEdgeConfig } from "./edge-config.js";
import { EdgeError } from "./errors.js";
import { readJSONBody } from "./http/read-body.js";
import { createCallerResolver } from "./http/request-auth.js";
import { errorResponse, jsonResponse } from "./http/responses.js";
import { type AgentRoutes, createAgentRoutes } from "./routes/agent-routes.js";
import { createAuthRoutes } from "./routes/auth-routes.js";
import { createDataRoutes } from "./routes/data-routes.js";
import { unavailableOnEdge } from "./routes/unavailable.js";

/** D1 is SQLite: the store and auth-core speak its dialect. */
const D1_DIALECT = sqliteDialect.name;

/** What the build bundles into a Worker: the app, known at build time. */
export interface EdgeAppDefinition {
  /** The app's manifest (JSON, validated again at start). */
  readonly manifest: unknown;
  /** The function files by name (their default exports). */
  readonly functions: FunctionRegistry;
  /** svc's documentation for the agent API and MCP; those routes answer 404 without it. */
  readonly docs?: DocsSources;
  /** The version the MCP server reports. Default "0.0.0". */
  readonly version?: string;
}

/** Options of `createEdgeApp`. */
export interface EdgeAppOptions {
  /** Milliseconds since the epoch. Default `Date.now`. */
  readonly now?: () => number;
  /** Receives unexpected errors (answered 500 `INTERNAL_ERROR`). Default `console.error`. */
  readonly onInternalError?: (error: unknown) => void;
}

/** One app on one D1 database: answers a request like the svc server does. */
export interface EdgeApp {
  readonly manifest: Manifest;
  readonly store: Store;
  readonly auth: Auth;
  readonly runner: FunctionRunner;
  fetch(request: Request): Promise<Response>;
}

const CORS_ALLOWED_HEADERS = "authorization, content-type, idempotency-key, mcp-protocol-version";
const CORS_EXPOSED_HEADERS = "x-next-cursor, idempotent-replayed, x-request-id";

function corsHeaders(config: EdgeConfig, origin: string | null): Record<string, string> | null {
  if (origin === null) return null;
  if (config.corsOrigins !== "*" && !config.corsOrigins.includes(origin)) return null;
  return {
    "access-control-allow-origin": origin,
    "access-control-allow-credentials": "true",
    "access-control-expose-headers": CORS_EXPOSED_HEADERS,
    vary: "Origin",
  };
}

/**
 * Composes the app for one Worker isolate: the store over D1, auth-core,
 * the function runner and the agent API, with no disk and no process of
 * its own. The build's entry calls it once per isolate and hands it every
 * request.
 *
 * @example
 * export default {
 *   fetch(request, env) {
 *     app ??= createEdgeApp(definition, env);
 *     return app.fetch(request);
 *   },
 * };
 */
export function createEdgeApp(
  definition: EdgeAppDefinition,
  env: EdgeEnv,
  options: EdgeAppOptions = {},
): EdgeApp {
  const manifest = parseManifest(definition.manifest);
  const config = parseEdgeConfig(env, manifest.auth?.trustedOrigins ?? []);
  const now = options.now ?? Date.now;
  const startedAt = now();
  const onInternalError =
    options.onInternalError ?? ((error: unknown) => console.error("svc edge:", error));
  const db = openD1<EntityTables>(env.DB);
  const store = createStore({
    db,
    dialect: D1_DIALECT,
    manifest,
    groupCommit: false,
    clock: () => new Date(now()),
    cursorSecret: `cursor:${config.authSecret}`,
  });
  const auth = createAuth({
    store,
    database: { db, dialect: D1_DIALECT },
    secret: config.authSecret,
    devMode: config.devMode,
    email: config.email,
    jwt: config.jwt,
    now,
    // Other isolates' revocations reach this one through the session cache's
    // one-second lifetime; the journal matters to live connections, which
    // the edge does not hold, so it is read rarely.
    revocationPollMs: 60_000,
    logError: (message, error) => onInternalError(new Error(message, { cause: error })),
  });
  const runner = createFunctionRunner({
    store,
    functions: definition.functions,
    now,
    logError: (message, error) => onInternalError(new Error(message, { cause: error })),
  });
  const resolveCaller = createCallerResolver(auth, config.adminToken);
  const authRoute = createAuthRoutes(auth);
  const dataRoute = createDataRoutes({ store, runner });
  const agent: AgentRoutes | undefined =
    definition.docs === undefined
      ? undefined
      : createAgentRoutes({
          library: createDocsLibrary(definition.docs),
          publicURL: config.publicURL,
          version: definition.version ?? "0.0.0",
          onInternalError,
        });

  async function route(request: Request, url: URL): Promise<Response> {
    const { pathname: path } = url;
    const method = request.method;
    if (path === "/health" && method === "GET") {
      return jsonResponse({
        status: "ok",
        uptime_seconds: Math.floor((now() - startedAt) / 1000),
      });
    }
    if (path === "/readyz" && method === "GET") {
      try {
        await store.ping();
      } catch (error) {
        throw new EdgeError("NOT_READY", undefined, { cause: error });
      }
      return jsonResponse({ status: "ready" });
    }
    const agentAnswer = await agent?.handle(request, url);
    if (agentAnswer !== undefined && agentAnswer !== null) return agentAnswer;
    const unavailable = unavailableOnEdge(path);
    if (unavailable !== null) throw unavailable;
    let caller: ReturnType<typeof resolveCaller> | undefined;
    let body: Promise<unknown> | undefined;
    const input = {
      request,
      url,
      method,
      caller: () => {
        caller ??= resolveCaller(request);
        return caller;
      },
      body: () => {
        body ??= readJSONBody(request, config.bodyLimitBytes);
        return body;
      },
    };
    const data = dataRoute(input);
    if (data !== null) return data;
    const authHandler = authRoute(method, path);
    if (authHandler !== undefined) {
      return jsonResponse(
        await authHandler({
          ...input,
          body: async () => {
            const parsed = await input.body();
            return parsed !== null && typeof parsed === "object" && !Array.isArray(parsed)
              ? (parsed as Record<string, unknown>)
              : {};
          },
        }),
      );
    }
    throw new EdgeError("ROUTE_NOT_FOUND", `No route for ${method} ${path}.`);
  }

  return {
    manifest,
    store,
    auth,
    runner,
    async fetch(request) {
      const url = new URL(request.url);
      const cors = corsHeaders(config, request.headers.get("origin"));
      if (request.method === "OPTIONS" && cors !== null) {
        return new Response(null, {
          status: 204,
          headers: {
            ...cors,
            "access-control-allow-methods": "GET, POST, PATCH, DELETE, OPTIONS",
            "access-control-allow-headers": CORS_ALLOWED_HEADERS,
            "access-control-max-age": "600",
          },
        });
      }
      let response: Response;
      try {
        response = await route(request, url);
      } catch (error) {
        response = errorResponse(error, onInternalError);
      }
      if (cors !== null) {
        for (const [name, value] of Object.entries(cors)) response.headers.set(name, value);
      }
      return response;
    },
  };
}
