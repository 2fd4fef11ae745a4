import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadFixtureDocs, serveRouter, type TestServer } from "../../test/helpers.js";
import type { DocsLibrary } from "../load-docs.js";
import {
  docsListSchema,
  docsSearchResultSchema,
  errorEnvelopeSchema,
  templateListSchema,
} from "../schemas.js";
import { agentApiRouter } from "./router.js";

let library: DocsLibrary;
let server: TestServer;

beforeAll(async () => {
  library = await loadFixtureDocs();
  server = await serveRouter(agentApiRouter({ library }));
});
afterAll(() => server.close());

function get(path: string, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${server.url}${path}`, { headers });
}

async function expectEnvelope(response: Response, status: number, code: string): Promise<string> {
  expect(response.status).toBe(status);
  expect(response.headers.get("content-type")).toBe("application/json; charset=utf-8");
  expect(response.headers.get("cache-control")).toBe("no-store");
  const body = errorEnvelopeSchema.parse(await response.json());
  expect(body.error.code).toBe(code);
  expect(body.error.message).toMatch(/\.$/);
  return body.error.message;
}

describe("GET /agent/v1/docs", () => {
  it("lists the whole index with count equal to the entries", async () => {
    const response = await get("/agent/v1/docs");
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("application/json; charset=utf-8");
    const body = docsListSchema.parse(await response.json());
    expect(body.count).toBe(library.size);
    expect(body.count).toBe(body.results.length);
    expect(body.results[0]?.markdownUrl).toBe(
      `${server.url}/agent/v1/docs/read?path=auth/api-keys`,
    );
  });
});

describe("GET /agent/v1/docs/search", () => {
  it("answers the query, best match first, with count equal to the entries", async () => {
    const response = await get("/agent/v1/docs/search?q=api%20keys");
    expect(response.status).toBe(200);
    const body = docsSearchResultSchema.parse(await response.json());
    expect(body.query).toBe("api keys");
    expect(body.count).toBe(body.results.length);
    expect(body.results[0]?.path).toBe("auth/api-keys");
  });

  it("answers an empty result list for words no page contains", async () => {
    const body = docsSearchResultSchema.parse(
      await (await get("/agent/v1/docs/search?q=quokka")).json(),
    );
    expect(body).toEqual({ query: "quokka", count: 0, results: [] });
  });

  it.each([
    ["q missing", ""],
    ["q empty", "?q="],
    ["q blank", "?q=%20%20"],
    ["q repeated", "?q=a&q=b"],
    ["q too long", `?q=${"a".repeat(501)}`],
  ])("answers 400 INVALID_QUERY for %s", async (_name, query) => {
    const message = await expectEnvelope(
      await get(`/agent/v1/docs/search${query}`),
      400,
      "INVALID_QUERY",
    );
    expect(message).toContain("`q`");
  });

  it.each([
    ["1", 1],
    ["2", 2],
    ["50", 6],
  ])("honours limit=%s", async (limit, count) => {
    const body = docsSearchResultSchema.parse(
      await (
        await get(
          `/agent/v1/docs/search?q=policy%20auth%20key%20manifest%20introduction&limit=${limit}`,
        )
      ).json(),
    );
    expect(body.count).toBe(count);
    expect(body.results).toHaveLength(count);
  });

  it("defaults limit to 10", async () => {
    const body = docsSearchResultSchema.parse(
      await (
        await get("/agent/v1/docs/search?q=policy%20auth%20key%20manifest%20introduction")
      ).json(),
    );
    expect(body.count).toBe(6);
  });

  it.each(["0", "51", "-1", "2.5", "abc", "", "1e9"])(
    "answers 400 INVALID_QUERY for limit=%j",
    async (limit) => {
      const message = await expectEnvelope(
        await get(`/agent/v1/docs/search?q=jwt&limit=${limit}`),
        400,
        "INVALID_QUERY",
      );
      expect(message).toContain("`limit`");
    },
  );
});

describe("GET /agent/v1/docs/read", () => {
  it("answers a listed page as markdown", async () => {
    const response = await get("/agent/v1/docs/read?path=auth/jwt");
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/markdown; charset=utf-8");
    expect(await response.text()).toBe(library.read("auth/jwt"));
  });

  it("reads the page behind every listed markdownUrl", async () => {
    for (const entry of library.list(server.url)) {
      const response = await fetch(entry.markdownUrl);
      expect(response.status).toBe(200);
      expect(await response.text()).toBe(library.read(entry.path));
    }
  });

  it.each([
    ["path missing", ""],
    ["path empty", "?path="],
  ])("answers 400 INVALID_QUERY for %s", async (_name, query) => {
    const message = await expectEnvelope(
      await get(`/agent/v1/docs/read${query}`),
      400,
      "INVALID_QUERY",
    );
    expect(message).toContain("`path`");
  });

  it.each([
    "../package",
    "..%2Fpackage.json",
    "auth/../auth/jwt",
    "/getting-started/introduction",
    "%2Fauth%2Fjwt",
    "getting-started/introduction.md",
    "x.md",
    "auth",
    "auth/jwt/",
    "AUTH/JWT",
    "auth%2Fnope",
    "%00",
  ])("answers 404 DOC_NOT_FOUND for path=%s", async (path) => {
    const message = await expectEnvelope(
      await get(`/agent/v1/docs/read?path=${path}`),
      404,
      "DOC_NOT_FOUND",
    );
    expect(message).toContain("list or search");
  });
});

const ALL_TEMPLATES = ["default", "todo", "chat", "shop", "consumer", "waitlist", "ai-chat"];

describe("GET /agent/v1/templates", () => {
  it("lists every template with count equal to the entries", async () => {
    const body = templateListSchema.parse(await (await get("/agent/v1/templates")).json());
    expect(body.templates.map((entry) => entry.template)).toEqual(ALL_TEMPLATES);
    expect(body.count).toBe(body.templates.length);
  });

  it.each([
    ["TODO", ["todo"]],
    ["rooms", ["chat"]],
    ["Default starter", ["default"]],
    ["row policies", ALL_TEMPLATES],
    ["nothing-like-this", []],
    ["", ALL_TEMPLATES],
  ])("filters by q=%j", async (q, templates) => {
    const body = templateListSchema.parse(
      await (await get(`/agent/v1/templates?q=${encodeURIComponent(q)}`)).json(),
    );
    expect(body.templates.map((entry) => entry.template)).toEqual(templates);
    expect(body.count).toBe(templates.length);
  });

  it("answers 400 INVALID_QUERY for a repeated q", async () => {
    await expectEnvelope(await get("/agent/v1/templates?q=a&q=b"), 400, "INVALID_QUERY");
  });
});

describe("GET /agent/v1/skill", () => {
  it("answers the authoring guide as markdown", async () => {
    const response = await get("/agent/v1/skill");
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/markdown; charset=utf-8");
    expect(await response.text()).toBe(library.skill());
  });
});

describe("caching", () => {
  it.each([
    "/agent/v1/docs",
    "/agent/v1/docs/search?q=jwt",
    "/agent/v1/docs/read?path=auth/jwt",
    "/agent/v1/templates",
    "/agent/v1/templates?q=todo",
    "/agent/v1/skill",
    "/agent/v1/openapi.json",
  ])("%s has a strong ETag, Cache-Control and answers 304 to If-None-Match", async (path) => {
    const first = await get(path);
    expect(first.status).toBe(200);
    const etag = first.headers.get("etag");
    expect(etag).toMatch(/^"[A-Za-z0-9_-]{27}"$/);
    expect(first.headers.get("cache-control")).toBe("public, max-age=300");
    expect((await get(path)).headers.get("etag")).toBe(etag);

    const revalidated = await get(path, { "If-None-Match": etag ?? "" });
    expect(revalidated.status).toBe(304);
    expect(await revalidated.text()).toBe("");
    expect(revalidated.headers.get("etag")).toBe(etag);

    const listed = await get(path, { "If-None-Match": `"other", ${etag ?? ""}` });
    expect(listed.status).toBe(304);
    const stale = await get(path, { "If-None-Match": '"stale"' });
    expect(stale.status).toBe(200);
  });

  it("gives different documents different ETags", async () => {
    const a = (await get("/agent/v1/docs/read?path=auth/jwt")).headers.get("etag");
    const b = (await get("/agent/v1/docs/read?path=auth/api-keys")).headers.get("etag");
    expect(a).not.toBe(b);
  });
});

describe("other requests", () => {
  it("answers 404 NOT_FOUND for unknown agent API paths", async () => {
    await expectEnvelope(await get("/agent/v1/nope"), 404, "NOT_FOUND");
    await expectEnvelope(await get("/agent/v1"), 404, "NOT_FOUND");
  });

  it("answers 405 METHOD_NOT_ALLOWED with Allow for other methods", async () => {
    const response = await fetch(`${server.url}/agent/v1/docs`, { method: "POST" });
    await expectEnvelope(response, 405, "METHOD_NOT_ALLOWED");
    expect(response.headers.get("allow")).toBe("GET, HEAD");
  });

  it("answers HEAD like GET without a body", async () => {
    const response = await fetch(`${server.url}/agent/v1/skill`, { method: "HEAD" });
    expect(response.status).toBe(200);
    expect(response.headers.get("etag")).toMatch(/^"/);
    expect(await response.text()).toBe("");
  });

  it("lets other paths through to the app", async () => {
    expect(await (await get("/outside")).json()).toEqual({ outside: true });
  });

  it("allows any origin and exposes the cache and rate-limit headers", async () => {
    const response = await get("/agent/v1/docs");
    expect(response.headers.get("access-control-allow-origin")).toBe("*");
    expect(response.headers.get("access-control-expose-headers")).toContain("RateLimit");
  });
});

describe("unexpected errors", () => {
  it("answers 500 INTERNAL_ERROR without details and reports the error", async () => {
    const reported: unknown[] = [];
    const broken: DocsLibrary = {
      ...library,
      list: () => {
        throw new Error("secret detail");
      },
    };
    const failing = await serveRouter(
      agentApiRouter({ library: broken, onInternalError: (error) => reported.push(error) }),
    );
    try {
      const response = await fetch(`${failing.url}/agent/v1/docs`);
      const text = await response.text();
      expect(response.status).toBe(500);
      expect(JSON.parse(text)).toEqual({
        error: { code: "INTERNAL_ERROR", message: "Something went wrong on the server." },
      });
      expect(text).not.toContain("secret");
      expect(reported).toHaveLength(1);
    } finally {
      await failing.close();
    }
  });
});
