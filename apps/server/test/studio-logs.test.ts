import { testDatabases } from "@svc/tooling/databases";
import { afterEach, describe, expect, it } from "vitest";
import { appPerTest } from "./app-server.js";
import type { AuthTestServer } from "./auth-fixtures.js";
import { ADMIN_TOKEN, adminRequest } from "./fixtures.js";
import {
  alertOf,
  isSignInForm,
  StudioClient,
  type StudioPage,
  startStudioServer,
  textOf,
  writeStudioApp,
} from "./studio-fixtures.js";

// The Logs page: this server's last requests from the in-memory ring the
// access log feeds (bounded by SVC_STUDIO_LOG_ENTRIES), filtered by
// status, route, caller and time, with charts; never a path, query
// string, token or body.

/** The rows of the Logs page: route, status and caller of each request, newest first. */
function requestsOf(page: StudioPage): { route: string; status: string; caller: string }[] {
  return [...page.html.matchAll(/<tr data-id="\d+">([\s\S]*?)<\/tr>/g)].map((row) => {
    const cell = (field: string): string =>
      textOf(
        new RegExp(`<td data-field="${field}"[^>]*>([\\s\\S]*?)</td>`).exec(row[1] ?? "")?.[1] ??
          "",
      );
    return { route: cell("route"), status: cell("status"), caller: cell("caller") };
  });
}

describe.each(testDatabases())("the studio's Logs page on $name", (database) => {
  // Each test starts its server, with the ring size it needs.
  const app = appPerTest(database, writeStudioApp);
  let server: AuthTestServer;
  let studio: StudioClient;

  async function start(env: Record<string, string> = {}): Promise<void> {
    server = await startStudioServer(app.target, app.dir, env);
    studio = new StudioClient(server);
    await studio.signIn();
  }

  afterEach(async () => {
    expect(server.internalErrors).toEqual([]);
    await server[Symbol.asyncDispose]();
  });

  it("lists the requests with their route template, status and caller, never a path, query or token", async () => {
    await start();
    const ran = await adminRequest(server, "POST", "/api/fn/echo", { n: 1 });
    expect(ran.status).toBe(200);
    await fetch(`${server.url}/api/entities/Note/${"a".repeat(40)}?secret=hunter2`, {
      headers: { authorization: "Bearer svc_not-a-real-token-hunter3" },
    });
    await fetch(`${server.url}/nowhere/at/all`);
    const page = await studio.get("/studio/logs");
    expect(page.status).toBe(200);
    expect(requestsOf(page)).toEqual([
      { route: "unmatched", status: "404", caller: "none (pages)" },
      // Refused at the gate, before a route matched.
      { route: "unmatched", status: "401", caller: "rejected credentials" },
      { route: "/api/fn/:name", status: "200", caller: "admin token" },
    ]);
    for (const secret of ["hunter2", "hunter3", ADMIN_TOKEN, "a".repeat(40), "/nowhere"]) {
      expect(page.html).not.toContain(secret);
    }
    // The charts: requests per minute as bars, latency as lines.
    expect(page.html).toContain('<section class="card" data-chart="requests">');
    expect(page.html).toMatch(
      /<svg class="chart"[^>]*aria-label="Requests per minute"[\s\S]*?<rect/,
    );
    expect(page.html).toMatch(
      /<svg class="chart"[^>]*aria-label="Latency p50 and p95 in milliseconds"/,
    );
    expect(textOf(/<strong data-stat="requests">([^<]*)</.exec(page.html)?.[1] ?? "")).toBe("3");
    expect(page.html).toContain('<a href="/studio/logs" aria-current="page">Logs</a>');
  });

  it("filters by status class, route, caller and time window, and shows the studio's own pages on request", async () => {
    await start();
    await adminRequest(server, "POST", "/api/fn/echo", {});
    await fetch(`${server.url}/nowhere`);
    const routes = async (query: string): Promise<string[]> =>
      requestsOf(await studio.get(`/studio/logs${query}`)).map(
        (row) => `${row.status} ${row.route}`,
      );
    expect(await routes("?status=4xx")).toEqual(["404 unmatched"]);
    expect(await routes("?status=2xx&caller=admin")).toEqual(["200 /api/fn/:name"]);
    expect(await routes("?route=%2Fapi%2Ffn%2F%3Aname")).toEqual(["200 /api/fn/:name"]);
    expect(await routes("?caller=jwt")).toEqual([]);
    const shown = await routes("?studio=1");
    expect(shown.some((row) => row.endsWith(" /studio/logs"))).toBe(true);
    // The server's clock moves on: the last 5 minutes no longer hold them, the last hour does.
    server.clock.advance(10 * 60_000);
    expect(await routes("?window=5m")).toEqual([]);
    expect(await routes("?window=1h")).toHaveLength(2);
    const page = await studio.get("/studio/logs?window=5m");
    expect(page.html).toContain("No request matches in the last 5 minutes.");
  });

  it.each([
    [
      "an unknown status class",
      "?status=9xx",
      "The parameter status must be one of 2xx, 3xx, 4xx, 5xx.",
    ],
    ["an unknown caller", "?caller=robot", "The parameter caller must be one of"],
    [
      "an unknown window",
      "?window=2d",
      "The parameter window must be one of 5m, 15m, 1h, 6h, 24h.",
    ],
    ["a bad page", "?before=abc", "The parameter before must be a positive whole number."],
    ["a route over 512 characters", `?route=${"r".repeat(513)}`, "The parameter route is too long"],
    ["a repeated filter", "?status=2xx&status=4xx", "The parameter status is malformed."],
  ])("answers %s with 400 INVALID_FORM and a clear message", async (_label, query, message) => {
    await start();
    const page = await studio.get(`/studio/logs${query}`);
    expect(page.status).toBe(400);
    expect(alertOf(page)).toEqual({
      code: "INVALID_FORM",
      message: expect.stringContaining(message),
    });
  });

  it("keeps only SVC_STUDIO_LOG_ENTRIES requests, and pages through them", async () => {
    await start({ SVC_STUDIO_LOG_ENTRIES: "120" });
    for (let n = 0; n < 150; n++) await fetch(`${server.url}/healthz`);
    const first = await studio.get("/studio/logs");
    expect(first.html).toContain(
      "This server's last 120 requests at most, kept in memory (120 now)",
    );
    // The studio's own pages count against the bound too, but are hidden here.
    const rows = requestsOf(first);
    expect(rows).toHaveLength(100);
    const older = /<a href="([^"]*)" rel="next">Older<\/a>/
      .exec(first.html)?.[1]
      ?.replaceAll("&amp;", "&");
    expect(older).toMatch(/^\/studio\/logs\?before=\d+$/);
    const second = await studio.get(older ?? "");
    expect(requestsOf(second).length).toBeGreaterThan(0);
    expect(rows.length + requestsOf(second).length).toBeLessThanOrEqual(120);
    expect(second.html).toContain('<a href="/studio/logs">Newest</a>');
  });

  it("says the log is off with SVC_STUDIO_LOG_ENTRIES=0, and needs a studio session", async () => {
    await start({ SVC_STUDIO_LOG_ENTRIES: "0" });
    await fetch(`${server.url}/healthz`);
    const page = await studio.get("/studio/logs");
    expect(page.status).toBe(200);
    expect(page.html).toContain("The request log is off on this server");
    const anonymous = await new StudioClient(server).get("/studio/logs");
    expect(anonymous.status).toBe(401);
    expect(isSignInForm(anonymous)).toBe(true);
  });
});
