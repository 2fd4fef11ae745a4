import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningServer } from "../src/start-server.js";
import { startTestServer, tempDir } from "./fixtures.js";

// The agent API and the MCP endpoint, served by the composed server beside
// the application API (what `pnpm dev` serves), with svc's real docs.
describe("agent API and MCP endpoint of the composed server", () => {
  const dir = tempDir();
  let server: RunningServer;

  beforeAll(async () => {
    server = await startTestServer({ SVC_DB_PATH: `${dir.path}/data.db` });
  });
  afterAll(async () => {
    await server?.close({ drainSeconds: 0 });
    dir[Symbol.dispose]();
  });

  it("lists the documentation with absolute links on this host", async () => {
    const response = await fetch(`${server.url}/agent/v1/docs`);
    expect(response.status).toBe(200);
    const body = (await response.json()) as {
      count: number;
      results: { path: string; url: string; markdownUrl: string }[];
    };
    expect(body.count).toBe(body.results.length);
    expect(body.count).toBeGreaterThan(10);
    const page = body.results.find((entry) => entry.path === "policies/language");
    expect(page?.markdownUrl).toBe(`${server.url}/agent/v1/docs/read?path=policies/language`);
    // Regression: every entry's human `url` answered 404.
    const human = await fetch(page?.url ?? "");
    expect(human.status).toBe(200);
    expect(human.headers.get("content-type")).toMatch(/^text\/html/);
  });

  it("searches, reads and serves the skill; errors are envelopes", async () => {
    const search = (await (await fetch(`${server.url}/agent/v1/docs/search?q=policy`)).json()) as {
      results: { path: string }[];
    };
    expect(search.results[0]?.path).toMatch(/^policies\//);
    const read = await fetch(`${server.url}/agent/v1/docs/read?path=policies/language`);
    expect(read.headers.get("content-type")).toMatch(/^text\/markdown/);
    expect(await read.text()).toContain("exists(");
    const skill = await fetch(`${server.url}/agent/v1/skill`);
    expect((await skill.text()).length).toBeGreaterThan(20_000);
    const missing = await fetch(`${server.url}/agent/v1/docs/search`);
    expect(missing.status).toBe(400);
    expect(await missing.json()).toMatchObject({ error: { code: expect.any(String) } });
    const unknown = await fetch(`${server.url}/agent/v1/docs/read?path=../package`);
    expect(unknown.status).toBe(404);
  });

  it("answers GET /mcp with 405 and Allow, and malformed JSON with 400", async () => {
    const get = await fetch(`${server.url}/mcp`);
    expect(get.status).toBe(405);
    expect(get.headers.get("allow")).toBe("POST");
    const bad = await fetch(`${server.url}/mcp`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      body: "{nope",
    });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ jsonrpc: "2.0", id: null, error: { code: -32700 } });
  });

  it("serves the four documentation tools to the official MCP client", async () => {
    const client = new Client({ name: "svc-test", version: "0.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`)));
    try {
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name).sort()).toEqual([
        "get_svc_skill",
        "list_svc_templates",
        "read_svc_doc",
        "search_svc_docs",
      ]);
      const search = await client.callTool({
        name: "search_svc_docs",
        arguments: { query: "jwt" },
      });
      expect(search.isError).toBeFalsy();
      expect(search.structuredContent).toMatchObject({ query: "jwt" });
      const read = await client.callTool({
        name: "read_svc_doc",
        arguments: { path: "getting-started/quick-start" },
      });
      expect(read.structuredContent).toMatchObject({ path: "getting-started/quick-start" });
      const templates = await client.callTool({ name: "list_svc_templates", arguments: {} });
      expect(templates.structuredContent).toMatchObject({ count: expect.any(Number) });
      const skill = await client.callTool({ name: "get_svc_skill", arguments: {} });
      expect(
        String((skill.structuredContent as { markdown: string }).markdown).length,
      ).toBeGreaterThan(20_000);
      const missing = await client.callTool({
        name: "read_svc_doc",
        arguments: { path: "nope/nope" },
      });
      expect(missing.isError).toBe(true);
    } finally {
      await client.close();
    }
  });
});

describe("behind a reverse proxy (SVC_TRUST_PROXY)", () => {
  it.each([
    ["loopback", "https:"],
    ["false", "http:"],
  ])("with SVC_TRUST_PROXY=%s links use %s", async (trust, expected) => {
    using dir = tempDir();
    const server = await startTestServer({
      SVC_DB_PATH: `${dir.path}/data.db`,
      SVC_TRUST_PROXY: trust,
    });
    try {
      const response = await fetch(`${server.url}/agent/v1/docs`, {
        headers: { "x-forwarded-proto": "https" },
      });
      const body = (await response.json()) as { results: { url: string }[] };
      expect(new URL(body.results[0]?.url ?? "").protocol).toBe(expected);
    } finally {
      await server.close({ drainSeconds: 0 });
    }
  });
});
