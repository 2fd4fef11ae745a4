import { readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import express from "express";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { mcpExpressHandler } from "./express.js";
import { createMcpServer, defineMcpTool } from "./index.js";

let listening: Server | undefined;

afterEach(async () => {
  const server = listening;
  listening = undefined;
  if (server !== undefined) await new Promise((resolve) => server.close(resolve));
});

describe("the README example", () => {
  it("runs as written", async () => {
    const add = defineMcpTool({
      name: "add",
      description: "Adds two numbers.",
      inputSchema: z.object({ a: z.number(), b: z.number() }),
      outputSchema: z.object({ sum: z.number() }),
      handler: ({ a, b }) => ({ sum: a + b }),
    });
    const server = createMcpServer({ name: "calc", version: "1.0.0", tools: [add] });
    const app = express();
    app.all("/mcp", mcpExpressHandler(server)); // no body parser in front

    const readme = readFileSync(new URL("../README.md", import.meta.url), "utf8");
    expect(readme).toContain(
      'app.all("/mcp", mcpExpressHandler(server)); // no body parser in front',
    );
    expect(readme).toContain("handler: ({ a, b }) => ({ sum: a + b }),");

    const http = createServer(app);
    listening = http;
    await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
    const address = http.address();
    if (address === null || typeof address === "string") throw new Error("No TCP address.");
    const response = await fetch(`http://127.0.0.1:${address.port}/mcp`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: { name: "add", arguments: { a: 2, b: 3 } },
      }),
    });
    expect(await response.json()).toEqual({
      jsonrpc: "2.0",
      id: 1,
      result: { content: [{ type: "text", text: '{"sum":5}' }], structuredContent: { sum: 5 } },
    });
  });
});
