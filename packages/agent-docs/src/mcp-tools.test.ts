import { describe, expect, it } from "vitest";
import { loadFixtureDocs } from "../test/helpers.js";
import { agentDocsTools } from "./mcp-tools.js";

const BASE = "https://svc.example.com";

async function tools(): Promise<ReturnType<typeof agentDocsTools>> {
  return agentDocsTools(await loadFixtureDocs(), { baseURL: `${BASE}/` });
}

describe("agentDocsTools", () => {
  it("returns the four tools the spec names, with zod schemas", async () => {
    const list = await tools();
    expect(list.map((tool) => tool.name)).toEqual([
      "search_svc_docs",
      "read_svc_doc",
      "list_svc_templates",
      "get_svc_skill",
    ]);
    for (const tool of list) {
      expect(tool.description.length).toBeGreaterThan(20);
      expect(typeof tool.inputSchema.safeParse).toBe("function");
      expect(typeof tool.outputSchema.safeParse).toBe("function");
    }
  });

  it("search_svc_docs answers {query, count, results} with absolute URLs", async () => {
    const [search] = await tools();
    const input = search.inputSchema.parse({ query: " jwt " });
    const output = await search.handler(input);
    expect(search.outputSchema.parse(output)).toEqual(output);
    expect(output.query).toBe("jwt");
    expect(output.count).toBe(output.results.length);
    expect(output.results[0]).toMatchObject({
      path: "auth/jwt",
      markdownUrl: `${BASE}/agent/v1/docs/read?path=auth/jwt`,
    });
    expect((await search.handler({ query: "policy auth key", limit: 1 })).count).toBe(1);
    expect(search.toText?.(output)).toContain("JWT exchange (path: auth/jwt)");
  });

  it.each([
    {},
    { query: "" },
    { query: "jwt", limit: 0 },
    { query: "jwt", limit: 51 },
    { query: "jwt", limit: 1.5 },
  ])("search_svc_docs rejects the input %j", async (input) => {
    const [search] = await tools();
    expect(search.inputSchema.safeParse(input).success).toBe(false);
  });

  it("read_svc_doc answers {path, title, markdown}", async () => {
    const [, read] = await tools();
    const output = await read.handler({ path: "auth/jwt" });
    expect(read.outputSchema.parse(output)).toEqual(output);
    expect(output).toMatchObject({ path: "auth/jwt", title: "JWT exchange" });
    expect(output.markdown).toMatch(/^# JWT exchange/);
    expect(read.toText?.(output)).toBe(output.markdown);
  });

  it.each(["../package", "/auth/jwt", "auth/jwt.md", "nope"])(
    "read_svc_doc throws an exposed DOC_NOT_FOUND for %j",
    async (path) => {
      const [, read] = await tools();
      await expect(read.handler({ path })).rejects.toMatchObject({
        code: "DOC_NOT_FOUND",
        expose: true,
        message: expect.stringContaining("search_svc_docs"),
      });
    },
  );

  it("list_svc_templates answers {count, templates}, filtered by query", async () => {
    const [, , templates] = await tools();
    const all = await templates.handler({});
    expect(templates.outputSchema.parse(all)).toEqual(all);
    expect(all.count).toBe(all.templates.length);
    const todo = await templates.handler({ query: "todo" });
    expect(todo.templates.map((entry) => entry.template)).toEqual(["todo"]);
    expect(templates.toText?.(todo)).toContain("npm create svc@latest my-app -- --template todo");
  });

  it("get_svc_skill answers {markdown}", async () => {
    const [, , , skill] = await tools();
    const output = await skill.handler(skill.inputSchema.parse({}));
    expect(output.markdown).toContain("# Authoring svc apps");
    expect(skill.toText?.(output)).toBe(output.markdown);
  });

  it("rejects a base URL that is not absolute", async () => {
    const library = await loadFixtureDocs();
    expect(() => agentDocsTools(library, { baseURL: "svc.example.com" })).toThrow(
      expect.objectContaining({ code: "INVALID_OPTIONS" }),
    );
  });
});
