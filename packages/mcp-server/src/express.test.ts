import { createServer, type Server } from "node:http";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import express from "express";
import { afterEach, describe, expect, it } from "vitest";
import { createMcpServer, type McpServer } from "./create-mcp-server.js";
import { mcpExpressHandler } from "./express.js";
import { echoTool, searchTool } from "./test-fixtures.js";

const servers: Server[] = [];

afterEach(async () => {
  await Promise.all(
    servers.splice(0).map(
      (server) =>
        new Promise<void>((resolve) => {
          server.closeAllConnections();
          server.close(() => resolve());
        }),
    ),
  );
});

function createDocsServer(maxBodyBytes?: number): McpServer {
  return createMcpServer({
    name: "docs",
    version: "1.0.0",
    tools: [searchTool, echoTool],
    ...(maxBodyBytes === undefined ? {} : { maxBodyBytes }),
  });
}

async function listen(server: Server): Promise<URL> {
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("No TCP address.");
  return new URL(`http://127.0.0.1:${address.port}/mcp`);
}

async function startExpress(mcp: McpServer, withJsonParser = false): Promise<URL> {
  const app = express();
  if (withJsonParser) app.use(express.json());
  app.all("/mcp", mcpExpressHandler(mcp));
  return listen(createServer(app));
}

const ping = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" });
const jsonHeaders = { "content-type": "application/json", accept: "application/json" };

describe("the official SDK client against an express app", () => {
  it("connects, lists the tools and calls each one", async () => {
    const url = await startExpress(createDocsServer());
    const client = new Client({ name: "integration-test", version: "0.0.0" });
    await client.connect(new StreamableHTTPClientTransport(url));
    try {
      expect(client.getServerVersion()).toEqual({ name: "docs", version: "1.0.0" });
      expect(client.getServerCapabilities()).toEqual({ tools: { listChanged: false } });

      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toEqual(["search_things", "echo"]);
      expect(tools[0]?.inputSchema).toMatchObject({ type: "object", required: ["q"] });

      const search = await client.callTool({ name: "search_things", arguments: { q: "auth" } });
      expect(search.isError).toBeFalsy();
      expect(search.structuredContent).toEqual({
        query: "auth",
        count: 2,
        results: [
          { title: "About auth", path: "guide/auth" },
          { title: "More auth", path: "guide/more-auth" },
        ],
      });
      expect(search.content).toEqual([{ type: "text", text: "- About auth\n- More auth" }]);

      const echo = await client.callTool({ name: "echo", arguments: { text: "hi" } });
      expect(echo.structuredContent).toEqual({ text: "hi", length: 2 });

      const invalid = await client.callTool({ name: "echo", arguments: {} });
      expect(invalid.isError).toBe(true);

      await expect(client.ping()).resolves.toEqual({});
    } finally {
      await client.close();
    }
  });
});

describe("mcpExpressHandler over HTTP", () => {
  it("answers GET with 405 and Allow: POST", async () => {
    const url = await startExpress(createDocsServer());
    const response = await fetch(url, { headers: { accept: "text/event-stream" } });
    expect(response.status).toBe(405);
    expect(response.headers.get("allow")).toBe("POST");
    expect(response.headers.get("mcp-session-id")).toBeNull();
  });

  it("answers malformed JSON with 400 and a notification with 202", async () => {
    const url = await startExpress(createDocsServer());
    const bad = await fetch(url, { method: "POST", headers: jsonHeaders, body: "{" });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ id: null, error: { code: -32700 } });
    const note = await fetch(url, {
      method: "POST",
      headers: jsonHeaders,
      body: JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }),
    });
    expect(note.status).toBe(202);
    expect(await note.text()).toBe("");
  });

  it("answers 413 for a declared length over the limit", async () => {
    const url = await startExpress(createDocsServer(1_024));
    const response = await fetch(url, {
      method: "POST",
      headers: jsonHeaders,
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "ping",
        params: { pad: "x".repeat(4_096) },
      }),
    });
    expect(response.status).toBe(413);
    expect(await response.json()).toMatchObject({
      jsonrpc: "2.0",
      id: null,
      error: { code: -32000 },
    });
  });

  it("answers 413 for a streamed body over the limit without buffering it", async () => {
    const url = await startExpress(createDocsServer(1_024));
    const chunk = new TextEncoder().encode("x".repeat(512));
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent >= 64) {
          controller.close();
          return;
        }
        sent += 1;
        controller.enqueue(chunk);
      },
    });
    const response = await fetch(url, {
      method: "POST",
      headers: jsonHeaders,
      body,
      duplex: "half",
    });
    expect(response.status).toBe(413);
  });

  it("uses the body of a JSON parser mounted in front", async () => {
    const url = await startExpress(createDocsServer(), true);
    const response = await fetch(url, {
      method: "POST",
      headers: jsonHeaders,
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 4,
        method: "tools/call",
        params: { name: "echo", arguments: { text: "parsed" } },
      }),
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({
      id: 4,
      result: { structuredContent: { text: "parsed", length: 6 } },
    });
  });

  it("works as a plain node:http request listener", async () => {
    const handler = mcpExpressHandler(createDocsServer());
    const url = await listen(createServer((req, res) => handler(req, res)));
    const response = await fetch(url, { method: "POST", headers: jsonHeaders, body: ping });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ jsonrpc: "2.0", id: 1, result: {} });
  });
});
