import { request } from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import { loadFixtureDocs, serveRouter, type TestServer } from "../../test/helpers.js";
import { docsListSchema } from "../schemas.js";
import { agentApiRouter } from "./router.js";

const servers: TestServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

/** A raw GET, so the Host header can be anything. */
function rawGet(
  url: string,
  path: string,
  host: string,
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(`${url}${path}`, { headers: { host } }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => {
        body += chunk;
      });
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on("error", reject);
    req.end();
  });
}

describe("base URL of the addresses in responses", () => {
  it("uses publicURL when configured", async () => {
    const server = await serveRouter(
      agentApiRouter({
        library: await loadFixtureDocs(),
        publicURL: "https://docs.example.com/svc/",
      }),
    );
    servers.push(server);
    const body = docsListSchema.parse(await (await fetch(`${server.url}/agent/v1/docs`)).json());
    expect(body.results[0]?.url).toBe("https://docs.example.com/svc/docs/auth/api-keys");
    const openapi = (await (await fetch(`${server.url}/agent/v1/openapi.json`)).json()) as {
      servers: unknown;
    };
    expect(openapi.servers).toEqual([{ url: "https://docs.example.com/svc" }]);
  });

  it("otherwise uses the request's Host header", async () => {
    const server = await serveRouter(agentApiRouter({ library: await loadFixtureDocs() }));
    servers.push(server);
    const response = await rawGet(server.url, "/agent/v1/docs", "agents.example.org:8080");
    const body = docsListSchema.parse(JSON.parse(response.body));
    expect(body.results[0]?.markdownUrl).toBe(
      "http://agents.example.org:8080/agent/v1/docs/read?path=auth/api-keys",
    );
  });

  it("honours X-Forwarded-Proto when express trusts the proxy", async () => {
    const router = agentApiRouter({ library: await loadFixtureDocs() });
    const server = await serveRouter(router, { trustProxy: "loopback" });
    servers.push(server);
    const response = await fetch(`${server.url}/agent/v1/docs`, {
      headers: { "X-Forwarded-Proto": "https" },
    });
    const body = docsListSchema.parse(await response.json());
    expect(body.results[0]?.url.startsWith("https://127.0.0.1:")).toBe(true);
  });

  it.each(["evil.example/path", "user@evil.example", "a b"])(
    "answers 400 INVALID_HOST for the Host header %j",
    async (host) => {
      const server = await serveRouter(agentApiRouter({ library: await loadFixtureDocs() }));
      servers.push(server);
      const response = await rawGet(server.url, "/agent/v1/docs", host);
      expect(response.status).toBe(400);
      expect(JSON.parse(response.body)).toMatchObject({ error: { code: "INVALID_HOST" } });
    },
  );

  it("rejects an invalid publicURL when the router is built", async () => {
    const library = await loadFixtureDocs();
    expect(() => agentApiRouter({ library, publicURL: "docs.example.com" })).toThrow(
      expect.objectContaining({ code: "INVALID_OPTIONS" }),
    );
  });
});
