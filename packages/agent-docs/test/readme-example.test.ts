import type { AddressInfo } from "node:net";
import express from "express";
import { describe, expect, it } from "vitest";
import { agentApiRouter } from "../src/express.js";
import { agentDocsTools, loadDocs } from "../src/index.js";
import { fixtureContentDir, fixtureSkillPath } from "./helpers.js";

// The README's example, on the fixture content.
describe("README example", () => {
  it("mounts the router and builds the MCP tools", async () => {
    const library = await loadDocs({ contentDir: fixtureContentDir, skillPath: fixtureSkillPath });
    const app = express();
    app.use(agentApiRouter({ library, publicURL: "https://svc.example.com" }));
    const tools = agentDocsTools(library, { baseURL: "https://svc.example.com" });
    const server = app.listen(0, "127.0.0.1");
    await new Promise((resolve) => server.once("listening", resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const response = await fetch(`http://127.0.0.1:${port}/agent/v1/docs/search?q=jwt&limit=1`);
      const body = (await response.json()) as { results: { markdownUrl: string }[] };
      expect(body.results[0]?.markdownUrl).toBe(
        "https://svc.example.com/agent/v1/docs/read?path=auth/jwt",
      );
      expect(tools.map((tool) => tool.name)).toContain("read_svc_doc");
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
