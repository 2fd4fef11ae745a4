import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { request } from "node:http";
import { join, relative, resolve } from "node:path";
import { testDatabases } from "@svc/tooling/databases";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pagePathSegments } from "../src/http/app-pages.js";
import type { RunningServer } from "../src/start-server.js";
import { appServerPerTest } from "./app-server.js";
import {
  ADMIN_TOKEN,
  adminRequest,
  type DisposableServer,
  databaseEnv,
  startLoopbackServer,
  TODO_MANIFEST,
  tempDir,
} from "./fixtures.js";

const INDEX_HTML =
  '<!doctype html><div id="root"></div><script type="module" src="/app.js"></script>';
const APP_JS = "console.log('the app');";
const SECRET = "a file beside public/ must never be served";

/**
 * An app directory: the todo manifest (functions from examples/todo) and,
 * unless `withPublic` is false, a `public/` front end with a few traps.
 */
function writeApp(dir: string, withPublic: boolean): string {
  const manifest = JSON.parse(readFileSync(TODO_MANIFEST, "utf8")) as Record<string, unknown>;
  manifest.functions = relative(dir, resolve(TODO_MANIFEST, "../functions"));
  const manifestPath = join(dir, "svc.json");
  writeFileSync(manifestPath, JSON.stringify(manifest));
  writeFileSync(join(dir, "secret.txt"), SECRET);
  if (!withPublic) return manifestPath;
  const pub = join(dir, "public");
  mkdirSync(join(pub, "assets"), { recursive: true });
  mkdirSync(join(pub, "api"), { recursive: true });
  writeFileSync(join(pub, "index.html"), INDEX_HTML);
  writeFileSync(join(pub, "app.js"), APP_JS);
  writeFileSync(join(pub, "assets", "logo.svg"), "<svg/>");
  writeFileSync(join(pub, "assets", "font.woff2"), "woff2");
  writeFileSync(join(pub, "notes.bin"), "bytes");
  writeFileSync(join(pub, ".env"), `SECRET=${SECRET}`);
  // Files named like framework routes must not shadow them.
  writeFileSync(join(pub, "health"), SECRET);
  writeFileSync(join(pub, "api", "index.html"), SECRET);
  return manifestPath;
}

async function start(manifestPath: string, env: Record<string, string>): Promise<DisposableServer> {
  return startLoopbackServer({
    SVC_MANIFEST: manifestPath,
    SVC_ADMIN_TOKEN: ADMIN_TOKEN,
    SVC_RATE_LIMIT: "off",
    ...env,
  });
}

/** A GET (or other method) with the path sent byte for byte, as fetch would normalise `..`. */
function rawRequest(
  server: RunningServer,
  path: string,
  options: { method?: string; accept?: string; headers?: Record<string, string> } = {},
): Promise<{
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}> {
  return new Promise((resolveResponse, reject) => {
    const req = request(
      {
        host: "127.0.0.1",
        port: server.port,
        path,
        method: options.method ?? "GET",
        headers: { accept: options.accept ?? "*/*", ...options.headers },
      },
      (res) => {
        let body = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => {
          body += chunk;
        });
        res.on("end", () =>
          resolveResponse({ status: res.statusCode ?? 0, headers: res.headers, body }),
        );
      },
    );
    req.on("error", reject);
    req.end();
  });
}

function errorCode(body: string): string | undefined {
  return (JSON.parse(body) as { error?: { code?: string } }).error?.code;
}

const BROWSER_ACCEPT = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8";

describe("pagePathSegments", () => {
  it.each([
    ["/", []],
    ["/app.js", ["app.js"]],
    ["/assets/logo.svg", ["assets", "logo.svg"]],
    ["/todos/", ["todos"]],
    ["/a%20b.txt", ["a b.txt"]],
    // Decoded once: a double-encoded dot-dot is a file literally named `%2e%2e`.
    ["/%252e%252e/svc.json", ["%2e%2e", "svc.json"]],
  ])("accepts %s", (path, segments) => {
    expect(pagePathSegments(path)).toEqual(segments);
  });

  it.each([
    "/../svc.json",
    "/%2e%2e/svc.json",
    "/assets/../../svc.json",
    "/%2e%2e%2fsvc.json",
    "/assets%2f..%2f..%2fsvc.json",
    "/..%5csvc.json",
    "/..\\svc.json",
    "//etc/passwd",
    "/%2fetc%2fpasswd",
    "/.env",
    "/assets/.hidden",
    "/./app.js",
    "/app.js%00.html",
    "/%E0%A4%A",
    "relative/path",
  ])("rejects %s", (path) => {
    expect(pagePathSegments(path)).toBeUndefined();
  });
});

describe.each(testDatabases())("app pages from public/ on $name", (database) => {
  const app = appServerPerTest(database, {
    scope: "suite",
    writeApp: (dir) => writeApp(dir, true),
    start: ({ manifest, target }) => start(manifest, databaseEnv(target)),
  });
  let server: RunningServer;

  beforeAll(() => {
    server = app.server;
  });

  it("serves index.html at / with the page headers", async () => {
    const response = await fetch(server.url);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(response.headers.get("x-content-type-options")).toBe("nosniff");
    expect(response.headers.get("cache-control")).toBe("no-cache");
    expect(await response.text()).toBe(INDEX_HTML);
  });

  it.each([
    ["/app.js", "text/javascript; charset=utf-8"],
    ["/assets/logo.svg", "image/svg+xml"],
    ["/assets/font.woff2", "font/woff2"],
    ["/notes.bin", "application/octet-stream"],
  ])("serves %s as %s", async (path, type) => {
    const response = await fetch(`${server.url}${path}`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe(type);
    expect(response.headers.get("x-content-type-options")).toBe("nosniff");
  });

  it("answers a revalidation with 304 (ETag and Last-Modified)", async () => {
    const first = await fetch(`${server.url}/app.js`);
    expect(await first.text()).toBe(APP_JS);
    const etag = first.headers.get("etag");
    const lastModified = first.headers.get("last-modified");
    expect(etag).toBeTruthy();
    expect(lastModified).toBeTruthy();
    // Raw requests: fetch adds `Cache-Control: no-cache` to conditional requests.
    const byTag = await rawRequest(server, "/app.js", { headers: { "if-none-match": etag ?? "" } });
    expect(byTag.status).toBe(304);
    expect(byTag.body).toBe("");
    const byDate = await rawRequest(server, "/app.js", {
      headers: { "if-modified-since": lastModified ?? "" },
    });
    expect(byDate.status).toBe(304);
  });

  it("answers HEAD with the headers only", async () => {
    const response = await rawRequest(server, "/app.js", { method: "HEAD" });
    expect(response.status).toBe(200);
    expect(response.headers["content-length"]).toBe(String(APP_JS.length));
    expect(response.body).toBe("");
  });

  it("serves index.html for a client route a browser navigates to", async () => {
    for (const path of ["/todos", "/todos/42", "/settings/"]) {
      const response = await fetch(`${server.url}${path}`, { headers: { accept: BROWSER_ACCEPT } });
      expect(response.status).toBe(200);
      expect(response.headers.get("vary")).toMatch(/accept/i);
      expect(await response.text()).toBe(INDEX_HTML);
    }
    const head = await rawRequest(server, "/todos", { method: "HEAD", accept: "text/html" });
    expect(head.status).toBe(200);
    expect(head.body).toBe("");
  });

  it.each([
    ["a client route fetched by a script", "/todos", "*/*"],
    ["a client route that refuses HTML", "/todos", "text/html;q=0, */*"],
    ["a missing file with an extension", "/missing.js", BROWSER_ACCEPT],
    ["a directory (no listing)", "/assets", "*/*"],
    ["a directory with a slash (no listing)", "/assets/", "*/*"],
  ])("answers %s with 404 ROUTE_NOT_FOUND", async (_name, path, accept) => {
    const response = await rawRequest(server, path, { accept });
    expect(response.status).toBe(404);
    expect(response.headers["content-type"]).toMatch(/^application\/json/);
    expect(errorCode(response.body)).toBe("ROUTE_NOT_FOUND");
  });

  it.each([
    "/../secret.txt",
    "/%2e%2e/secret.txt",
    "/%2E%2E/secret.txt",
    "/assets/../../secret.txt",
    "/assets/%2e%2e/%2e%2e/secret.txt",
    "/%2e%2e%2fsecret.txt",
    "/assets%2f..%2f..%2fsecret.txt",
    "/..%5csecret.txt",
    "/..\\secret.txt",
    "//etc/passwd",
    "/%2fetc%2fpasswd",
    `/${encodeURIComponent(resolve("/etc/passwd"))}`,
    "/.env",
    "/%2eenv",
    "/app.js%00",
    "/%00",
    "/%E0%A4%A",
    "/..",
  ])("refuses %s with 404 ROUTE_NOT_FOUND, even to a browser", async (path) => {
    for (const accept of ["*/*", BROWSER_ACCEPT]) {
      const response = await rawRequest(server, path, { accept });
      expect(response.status).toBe(404);
      expect(response.body).not.toContain(SECRET);
      expect(response.body).not.toContain("root:");
      expect(errorCode(response.body)).toBe("ROUTE_NOT_FOUND");
    }
  });

  it("keeps every framework route ahead of the pages", async () => {
    const health = await fetch(`${server.url}/health`, { headers: { accept: BROWSER_ACCEPT } });
    expect(await health.json()).toMatchObject({ status: "ok" });
    expect((await fetch(`${server.url}/readyz`)).status).toBe(200);
    const metrics = await fetch(`${server.url}/metrics`);
    expect(await metrics.text()).toContain("svc_http_requests_total");
    const created = await adminRequest(server, "POST", "/api/fn/createList", { title: "pages" });
    expect(created.status).toBe(200);
    const agent = await fetch(`${server.url}/agent/v1/templates`);
    expect(agent.headers.get("content-type")).toMatch(/^application\/json/);
  });

  it.each([
    "/api",
    "/api/",
    "/api/nope",
    "/API/nope",
    "/agent/nope",
    "/mcp/nope",
    "/events/nope",
    "/ws/nope",
    "/shard/nope",
    "/studio/nope",
    "/docs/nope/nope/nope",
  ])("never answers a browser under the framework's %s with the page", async (path) => {
    const response = await rawRequest(server, path, { accept: BROWSER_ACCEPT });
    expect(response.status).toBe(404);
    expect(response.body).not.toContain(SECRET);
    expect(response.body).not.toContain(INDEX_HTML);
  });

  it.each(["POST", "PUT", "DELETE", "PATCH"])("keeps %s to a page's path a 404", async (method) => {
    for (const path of ["/", "/index.html", "/todos"]) {
      const response = await rawRequest(server, path, { method, accept: BROWSER_ACCEPT });
      expect(response.status).toBe(404);
      expect(errorCode(response.body)).toBe("ROUTE_NOT_FOUND");
    }
  });
});

describe("an app without public/", () => {
  const dir = tempDir();
  let server: RunningServer;

  beforeAll(async () => {
    server = await start(writeApp(dir.path, false), { SVC_DB_PATH: ":memory:" });
  });
  afterAll(async () => {
    await server?.close({ drainSeconds: 0 });
    dir[Symbol.dispose]();
  });

  it.each(["/", "/index.html", "/todos"])(
    "answers %s as before: 404 ROUTE_NOT_FOUND",
    async (path) => {
      const response = await rawRequest(server, path, { accept: BROWSER_ACCEPT });
      expect(response.status).toBe(404);
      expect(errorCode(response.body)).toBe("ROUTE_NOT_FOUND");
    },
  );
});
