import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadFixtureDocs, serveRouter, type TestServer } from "../../test/helpers.js";
import type { DocsLibrary } from "../load-docs.js";
import { createAgentOpenAPIDocument, type OpenAPIOperation } from "../openapi.js";
import { OPENAPI_PATH } from "../operations.js";
import { agentApiRouter } from "./router.js";

// Requests that make each operation answer each status it can answer (200,
// 304 and 429 are probed for every operation below), and for each documented
// parameter a request showing the route reads it.
const probes: Record<
  string,
  { ok: string; errors: Record<string, string>; params: Record<string, string> }
> = {
  listSvcDocs: { ok: "", errors: {}, params: {} },
  searchSvcDocs: {
    ok: "?q=jwt",
    errors: { "400": "?q=" },
    params: { q: "?limit=5", limit: "?q=jwt&limit=51" },
  },
  readSvcDoc: {
    ok: "?path=auth/jwt",
    errors: { "400": "", "404": "?path=../package" },
    params: { path: "" },
  },
  listSvcTemplates: { ok: "?q=todo", errors: { "400": "?q=a&q=b" }, params: { q: "?q=a&q=b" } },
  getSvcSkill: { ok: "", errors: {}, params: {} },
};

interface RouterRoute {
  path: string;
  methods: string[];
}

/** The routes the router really registers, read from express's layer stack. */
function registeredRoutes(library: DocsLibrary): RouterRoute[] {
  const router = agentApiRouter({ library });
  return router.stack.flatMap((layer) => {
    const route = layer.route;
    if (route === undefined) return [];
    const methods = route.stack.flatMap((inner) => (inner.method ? [inner.method] : []));
    return [{ path: route.path, methods }];
  });
}

let library: DocsLibrary;
let server: TestServer;
let limited: TestServer;

beforeAll(async () => {
  library = await loadFixtureDocs();
  server = await serveRouter(agentApiRouter({ library }));
  limited = await serveRouter(
    agentApiRouter({ library, rateLimit: { windowMs: 60_000, limit: 1 } }),
  );
  await fetch(`${limited.url}/agent/v1/docs`);
});
afterAll(async () => {
  await Promise.all([server.close(), limited.close()]);
});

describe("router and OpenAPI document", () => {
  const document = createAgentOpenAPIDocument();
  const documented = Object.entries(document.paths).flatMap(([path, item]) =>
    Object.entries(item).map(([method, operation]) => ({ path, method, operation })),
  );

  it("documents every route the router serves, with its method (the description itself aside)", () => {
    const routes = registeredRoutes(library);
    expect(routes.length).toBe(6);
    for (const route of routes) {
      expect(route.methods).toEqual(["get"]);
      if (route.path === OPENAPI_PATH) continue;
      expect(document.paths[route.path]?.get?.operationId, route.path).toBeDefined();
    }
  });

  it("serves every documented operation except the MCP ones (served by @svc/mcp-server)", () => {
    const served = new Set(registeredRoutes(library).map((route) => `get ${route.path}`));
    const unserved = documented
      .filter(({ path, method }) => !served.has(`${method} ${path}`))
      .map(({ operation }) => operation.operationId);
    expect(unserved).toEqual(["callSvcMcp", "openSvcMcpStream"]);
  });

  const served = documented.filter(({ path }) => path !== "/mcp");
  it.each(served.map(({ path, operation }) => [operation.operationId, path, operation] as const))(
    "%s answers exactly its documented statuses and reads its documented parameters",
    async (operationId, path, operation: OpenAPIOperation) => {
      const probe = probes[operationId];
      if (probe === undefined) throw new Error(`no probe for ${operationId}`);
      const observed = new Set<string>();

      const ok = await fetch(`${server.url}${path}${probe.ok}`);
      observed.add(String(ok.status));
      const etag = ok.headers.get("etag") ?? "";
      const notModified = await fetch(`${server.url}${path}${probe.ok}`, {
        headers: { "If-None-Match": etag },
      });
      observed.add(String(notModified.status));
      for (const [status, query] of Object.entries(probe.errors)) {
        const response = await fetch(`${server.url}${path}${query}`);
        expect(response.status, `${path}${query}`).toBe(Number(status));
        observed.add(status);
      }
      observed.add(String((await fetch(`${limited.url}${path}${probe.ok}`)).status));
      expect([...observed].sort()).toEqual(Object.keys(operation.responses).sort());

      expect(operation.parameters.map((parameter) => parameter.name).sort()).toEqual(
        Object.keys(probe.params).sort(),
      );
      for (const [name, query] of Object.entries(probe.params)) {
        const response = await fetch(`${server.url}${path}${query}`);
        expect(response.status, `${name}: ${path}${query}`).toBe(400);
        const body: unknown = await response.json();
        expect(JSON.stringify(body)).toContain(`\`${name}\``);
      }
    },
  );
});
