import { toErrorResponse } from "@svc/schema";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type AuthTestServer,
  registerPassword,
  startAuthServer,
  TRUSTED_ORIGIN,
} from "./auth-fixtures.js";
import { ADMIN_TOKEN, adminRequest, tempDir } from "./fixtures.js";
import { type RawRequest, type RawResponse, rawRequest } from "./raw-http.js";

// Request targets other than a plain path: the absolute form
// (`GET http://host/api/x`), which RFC 9112 says a server must accept, and
// odd ones (`*`, `//api`, dot segments, backslashes, overlong). Regression
// (issue 21, finding 4): the /api gate tested `req.url.startsWith("/api/")`
// while express routes on the parsed path, so an absolute-form target
// reached every /api route past CORS, the caller and the CSRF check: routes
// that read the caller answered 500 INTERNAL_ERROR, the others ran unguarded.

const EVIL_ORIGIN = "https://evil.example";
const ROW_ID = "0".repeat(40);

describe("request targets", () => {
  const dir = tempDir();
  let server: AuthTestServer;
  let port: number;
  let token: string;
  let userId: string;

  beforeAll(async () => {
    server = await startAuthServer({ SVC_RATE_LIMIT: "off", SVC_DB_PATH: `${dir.path}/app.db` });
    port = server.port;
    ({ token, user_id: userId } = await registerPassword(
      server,
      "targets@example.com",
      "correct horse battery",
    ));
  });
  afterAll(async () => {
    await server?.[Symbol.asyncDispose]();
    dir[Symbol.dispose]();
  });

  const absolute = (path: string): string => `http://127.0.0.1:${port}${path}`;
  const send = (request: RawRequest): Promise<RawResponse> => rawRequest(port, request);
  const bearer = (): Record<string, string> => ({ authorization: `Bearer ${token}` });

  function expectEnvelope(response: RawResponse, status: number, code: string): void {
    expect(response.status, response.body).toBe(status);
    expect(response.json).toEqual({ error: { code, message: expect.any(String) } });
  }

  // One request per route family. The absolute form must be answered
  // exactly like the origin form: same status, same body.
  const families: readonly [string, Omit<RawRequest, "target">, string][] = [
    ["entity list", {}, "/api/entities/Todo"],
    ["entity read", {}, `/api/entities/Todo/${ROW_ID}`],
    ["function call", { method: "POST", body: "{}" }, "/api/fn/listTodos"],
    ["batch", { method: "POST", body: '{"operations":[]}' }, "/api/batch"],
    ["auth me", {}, "/api/auth/me"],
    ["auth sessions", {}, "/api/auth/sessions"],
    ["OAuth providers", {}, "/api/auth/providers"],
    ["OAuth login", {}, "/api/auth/login/nope"],
    ["OAuth callback", {}, "/api/auth/callback/nope?state=x&code=y"],
    ["billing entitlements", {}, "/api/billing/entitlements"],
    ["billing webhook", { method: "POST", body: "{}" }, "/api/billing/webhook"],
    ["file info", {}, `/api/files/${ROW_ID}/info`],
    ["jobs admin", {}, "/api/admin/jobs"],
    ["sync pull", {}, "/api/sync/pull?entity=Todo"],
    ["SSE refusal", {}, "/events?entity=Nope"],
    ["readiness", {}, "/readyz"],
    ["agent API", {}, "/agent/v1/templates"],
    ["agent docs page", {}, "/docs/auth/overview"],
    [
      "MCP",
      {
        method: "POST",
        headers: { accept: "application/json, text/event-stream" },
        body: '{"jsonrpc":"2.0","id":1,"method":"ping"}',
      },
      "/mcp",
    ],
    ["studio", {}, "/studio"],
    ["app page", {}, "/"],
    ["no route", {}, "/api/nope"],
  ];

  it.each(families)(
    "answers the %s route in absolute form as in origin form",
    async (_, request, path) => {
      const headers = { ...bearer(), "content-type": "application/json", ...request.headers };
      const origin = await send({ ...request, headers, target: path });
      const viaAbsolute = await send({ ...request, headers, target: absolute(path) });
      // 501 PAYMENT_NOT_CONFIGURED is the spec's answer of an unconfigured webhook.
      expect(origin.status, origin.body).toBeLessThan(path === "/api/billing/webhook" ? 502 : 500);
      expect(viaAbsolute.status, viaAbsolute.body).toBe(origin.status);
      expect(viaAbsolute.headers["content-type"]).toBe(origin.headers["content-type"]);
      if (origin.json !== undefined) expect(viaAbsolute.json).toEqual(origin.json);
    },
  );

  describe("the /api gate runs for absolute-form targets", () => {
    it("resolves the caller", async () => {
      const me = await send({ target: absolute("/api/auth/me"), headers: bearer() });
      expect(me.status, me.body).toBe(200);
      expect(me.json).toMatchObject({ user_id: userId, via: "session" });
      // A bad bearer is refused by the gate, as on the origin form.
      const bad = await send({
        target: absolute("/api/entities/Todo"),
        headers: { authorization: "Bearer svc_nope" },
      });
      expectEnvelope(bad, 401, "INVALID_TOKEN");
    });

    it("applies CORS: preflights end at the gate, trusted origins are reflected", async () => {
      const preflight = await send({
        method: "OPTIONS",
        target: absolute("/api/entities/Todo"),
        headers: { origin: TRUSTED_ORIGIN, "access-control-request-method": "POST" },
      });
      expect(preflight.status).toBe(204);
      expect(preflight.headers["access-control-allow-origin"]).toBe(TRUSTED_ORIGIN);
      // A route that reads no caller gets CORS too.
      const providers = await send({
        target: absolute("/api/auth/providers"),
        headers: { origin: TRUSTED_ORIGIN },
      });
      expect(providers.status).toBe(200);
      expect(providers.headers["access-control-allow-origin"]).toBe(TRUSTED_ORIGIN);
      const untrusted = await send({
        target: absolute("/api/auth/providers"),
        headers: { origin: EVIL_ORIGIN },
      });
      expect(untrusted.headers["access-control-allow-origin"]).toBeUndefined();
    });

    it("applies the CSRF check to cookie-authenticated changes", async () => {
      const title = "absolute-form csrf";
      const refused = await send({
        method: "POST",
        target: absolute("/api/fn/createTodo"),
        headers: {
          cookie: `svc_session=${token}`,
          origin: EVIL_ORIGIN,
          "content-type": "application/json",
        },
        body: JSON.stringify({ title }),
      });
      expectEnvelope(refused, 403, "CSRF_FAILED");
      const where = encodeURIComponent(JSON.stringify({ title }));
      const rows = await adminRequest(server, "GET", `/api/entities/Todo?where=${where}`);
      expect(await rows.json()).toEqual([]);
    });

    it("keeps admin routes to the admin token", async () => {
      const refused = await send({
        method: "POST",
        target: absolute("/api/batch"),
        headers: bearer(),
        body: '{"operations":[]}',
      });
      expectEnvelope(refused, 403, "ADMIN_REQUIRED");
      const allowed = await send({
        target: absolute("/api/admin/jobs"),
        headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
      });
      expect(allowed.status, allowed.body).toBe(200);
    });
  });

  it("counts an absolute-form request under its route template in /metrics", async () => {
    await send({ target: absolute("/agent/v1/templates?q=absolute"), headers: {} });
    const metrics = await send({ target: "/metrics", headers: { accept: "text/plain" } });
    expect(metrics.body).toMatch(
      /svc_http_requests_total\{method="GET",route="\/agent\/v1\/templates",status="200"\} [1-9]/,
    );
    expect(metrics.body).not.toContain("http://");
  });

  it("accepts an absolute-form target spelling out the default port of a portless Host", async () => {
    const response = await send({
      target: "http://example.test:80/api/auth/providers",
      headers: { host: "example.test" },
    });
    expect(response.status, response.body).toBe(200);
  });

  it.each([
    ["the asterisk form", "OPTIONS", "*"],
    ["the asterisk form with GET", "GET", "*"],
    ["an absolute target naming another host", "GET", "http://evil.example/api/entities/Todo"],
    ["an absolute target with user info", "GET", "http://user@127.0.0.1:PORT/api/entities/Todo"],
    ["an absolute target of another scheme", "GET", "ftp://127.0.0.1:PORT/api/entities/Todo"],
    ["an absolute target without a host", "GET", "http:///api/entities/Todo"],
  ])("refuses %s with 400 INVALID_REQUEST_TARGET", async (_, method, target) => {
    const response = await send({
      method,
      target: target.replace("PORT", String(port)),
      headers: { ...bearer(), cookie: `svc_session=${token}`, origin: EVIL_ORIGIN },
    });
    expectEnvelope(response, 400, "INVALID_REQUEST_TARGET");
  });

  it.each([
    "//api/entities/Todo",
    "/api/../api/entities/Todo",
    "/x/../api/entities/Todo",
    "/api/%2e%2e/api/entities/Todo",
    "/api/entities/%2e%2e/Todo",
    "/api\\entities\\Todo",
    "/API/entities/Todo",
    "/%61pi/entities/Todo",
    "http://127.0.0.1:PORT/x/../api/entities/Todo",
  ])("reaches no route with %s (404 ROUTE_NOT_FOUND), with or without the gate", async (target) => {
    for (const method of ["GET", "POST"]) {
      const response = await send({
        method,
        target: target.replace("PORT", String(port)),
        headers: { cookie: `svc_session=${token}`, origin: EVIL_ORIGIN },
        body: "{}",
      });
      expect(response.status, `${method} ${target}: ${response.body}`).toBeGreaterThanOrEqual(400);
      expect(response.status).toBeLessThan(500);
      expect(response.json).toMatchObject({ error: { code: expect.any(String) } });
    }
  });

  it.each([
    ["a target not starting with a slash", "api/entities/Todo", 400, "BAD_REQUEST"],
    ["a target starting with a backslash", "\\api/entities/Todo", 400, "BAD_REQUEST"],
    ["a target past the header size limit", `/api/${"a".repeat(20_000)}`, 431, "HEADERS_TOO_LARGE"],
  ])(
    "answers %s (refused by Node's parser) with an error envelope",
    async (_, target, status, code) => {
      const response = await send({ target, headers: bearer() });
      expectEnvelope(response, status, code);
      expect(response.headers.connection).toBe("close");
    },
  );

  it("logged no unexpected error", () => {
    expect(server.internalErrors.filter((error) => toErrorResponse(error).internal)).toEqual([]);
  });
});
