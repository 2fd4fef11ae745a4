import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serveRouter, type TestServer } from "../../test/helpers.js";
import { loadDocs } from "../load-docs.js";
import { docsSiteRouter } from "./docs-site.js";

// The human pages behind every page entry's `url`, rendered from the
// package's real content (so a link in any page is checked to resolve).
describe("docsSiteRouter", () => {
  let server: TestServer;
  let paths: string[];

  beforeAll(async () => {
    const library = await loadDocs();
    paths = library.list("http://x").map((entry) => entry.path);
    server = await serveRouter(docsSiteRouter({ library }));
  });
  afterAll(() => server.close());

  it("renders a page as HTML with its title, a strong ETag and a strict CSP", async () => {
    const response = await fetch(`${server.url}/docs/policies/language`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(response.headers.get("content-security-policy")).toContain("default-src 'none'");
    const etag = response.headers.get("etag");
    expect(etag).toMatch(/^"/);
    const html = await response.text();
    expect(html).toMatch(/<title>[^<]+ · svc docs<\/title>/);
    expect(html).toContain("<h1");
    const again = await fetch(`${server.url}/docs/policies/language`, {
      headers: { "if-none-match": etag ?? "" },
    });
    expect(again.status).toBe(304);
  });

  it("rewrites links between pages to site paths that exist", async () => {
    for (const path of paths) {
      const html = await (await fetch(`${server.url}/docs/${path}`)).text();
      for (const [, href] of html.matchAll(/href="(\.\.?\/[^"#]*)/g)) {
        expect(href).not.toMatch(/\.md$/);
        const target = new URL(href ?? "", `${server.url}/docs/${path}`);
        expect(paths, `${path} links to ${href}`).toContain(
          target.pathname.replace(/^\/docs\//, ""),
        );
      }
    }
  });

  it("lists every page on /docs", async () => {
    const html = await (await fetch(`${server.url}/docs`)).text();
    for (const path of paths) expect(html).toContain(`href="/docs/${path}"`);
  });

  it.each(["/docs/nope/nope", "/docs/policies/language.md", "/docs/..%2Fpackage/x"])(
    "answers %s with a 404 page",
    async (path) => {
      const response = await fetch(`${server.url}${path}`);
      expect(response.status).toBe(404);
      expect(await response.text()).toContain("No such page");
    },
  );
});
