import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AuthTestServer, startAuthServer } from "./auth-fixtures.js";
import { tempDir } from "./fixtures.js";

/** The `svc_http_requests_total` lines of `/metrics` for one status. */
async function requestLines(server: { url: string }, status: number): Promise<string[]> {
  const response = await fetch(`${server.url}/metrics`, { headers: { accept: "text/plain" } });
  const text = await response.text();
  return text
    .split("\n")
    .filter(
      (line) => line.startsWith("svc_http_requests_total{") && line.includes(`status="${status}"`),
    );
}

describe("/metrics route labels", () => {
  const dir = tempDir();
  let server: AuthTestServer;

  beforeAll(async () => {
    server = await startAuthServer({ SVC_RATE_LIMIT: "off", SVC_DB_PATH: `${dir.path}/app.db` });
  });
  afterAll(async () => {
    await server?.[Symbol.asyncDispose]();
    dir[Symbol.dispose]();
  });

  // Regression (issue 21): studio pages answered by the studio's error
  // handler (the sign-in form at /studio, a 401 on a deeper page) were
  // counted as `/studio/studio/...`: the label added `req.baseUrl`, which
  // that path-scoped handler had set, to the route's full path.
  it("labels studio pages answered by its error handler with their route template", async () => {
    expect((await fetch(`${server.url}/studio`)).status).toBe(200);
    expect((await fetch(`${server.url}/studio/entities/Todo`)).status).toBe(401);
    const ok = await requestLines(server, 200);
    const refused = await requestLines(server, 401);
    expect(ok.some((line) => line.includes('route="/studio"'))).toBe(true);
    expect(refused.some((line) => line.includes('route="/studio/entities/:entity"'))).toBe(true);
    expect([...ok, ...refused].filter((line) => line.includes("/studio/studio"))).toEqual([]);
  });

  it("labels a route answered by an app-level error with its template", async () => {
    const response = await fetch(`${server.url}/api/fn/nope`, { method: "POST", body: "{}" });
    expect(response.status).toBe(404);
    const lines = await requestLines(server, 404);
    expect(lines.some((line) => line.includes('route="/api/fn/:name"'))).toBe(true);
  });
});
