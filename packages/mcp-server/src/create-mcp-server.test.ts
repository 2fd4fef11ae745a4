import { describe, expect, it } from "vitest";
import { z } from "zod";
import { createMcpServer } from "./create-mcp-server.js";
import { McpServerError } from "./errors.js";
import { createSampleServer, post, rpc } from "./test-fixtures.js";

const server = createSampleServer({ trustedOrigins: ["http://localhost:5173"] });

describe("HTTP methods", () => {
  it.each(["GET", "DELETE", "PUT", "PATCH", "HEAD", "OPTIONS"])(
    "answers %s with 405 and Allow: POST",
    async (method) => {
      const response = await server.handle({ method, headers: { accept: "text/event-stream" } });
      expect(response.status).toBe(405);
      expect(response.headers.allow).toBe("POST");
      expect(JSON.parse(response.body ?? "")).toMatchObject({
        jsonrpc: "2.0",
        id: null,
        error: { code: -32000 },
      });
    },
  );

  it("accepts a lower-case method name", async () => {
    const response = await server.handle({
      method: "post",
      headers: {},
      body: JSON.stringify(rpc("ping")),
    });
    expect(response.status).toBe(200);
  });
});

describe("requests and notifications", () => {
  it("answers a request with 200 application/json and its id", async () => {
    const { status, headers, json } = await post(server, rpc("ping", undefined, "abc"));
    expect(status).toBe(200);
    expect(headers["content-type"]).toBe("application/json");
    expect(json).toEqual({ jsonrpc: "2.0", id: "abc", result: {} });
  });

  it.each([
    ["notifications/initialized", undefined],
    ["notifications/cancelled", { requestId: 1 }],
    ["notifications/unknown", undefined],
  ])("answers the notification %s with 202 and no body", async (method, params) => {
    const response = await server.handle({
      method: "POST",
      headers: {},
      body: JSON.stringify({ jsonrpc: "2.0", method, ...(params ? { params } : {}) }),
    });
    expect(response.status).toBe(202);
    expect(response.body).toBeUndefined();
  });

  it("answers a client's JSON-RPC response with 202", async () => {
    const { status, json } = await post(server, { jsonrpc: "2.0", id: 7, result: {} });
    expect(status).toBe(202);
    expect(json).toBeUndefined();
  });

  it("issues no session id and ignores one it is sent", async () => {
    const { status, headers } = await post(
      server,
      rpc("initialize", { protocolVersion: "2025-06-18" }),
      {
        "mcp-session-id": "stale-session",
      },
    );
    expect(status).toBe(200);
    expect(Object.keys(headers).map((name) => name.toLowerCase())).not.toContain("mcp-session-id");
  });
});

describe("the two 400 answers", () => {
  it.each(["{", "", "not json", '{"jsonrpc":"2.0",}', "\u00ff"])(
    "answers malformed JSON %j with 400 and -32700",
    async (body) => {
      const { status, json } = await post(server, body);
      expect(status).toBe(400);
      expect(json).toMatchObject({ jsonrpc: "2.0", id: null, error: { code: -32700 } });
    },
  );

  it("answers invalid UTF-8 bytes with 400 and -32700", async () => {
    const response = await server.handle({
      method: "POST",
      headers: {},
      body: new Uint8Array([0x7b, 0xff, 0x7d]),
    });
    expect(response.status).toBe(400);
    expect(JSON.parse(response.body ?? "")).toMatchObject({ error: { code: -32700 } });
  });

  it.each(["1999-01-01", "2024-10-07", "latest", "2025-06-18, 2025-03-26"])(
    "answers MCP-Protocol-Version %j with 400 and -32600",
    async (version) => {
      const { status, json } = await post(server, rpc("ping"), { "MCP-Protocol-Version": version });
      expect(status).toBe(400);
      expect(json).toMatchObject({
        jsonrpc: "2.0",
        id: null,
        error: { code: -32600, data: { supported: expect.arrayContaining(["2026-07-28"]) } },
      });
    },
  );
});

describe("JSON-RPC errors with status 200", () => {
  it.each([
    ["a batch", [rpc("ping")], null],
    ["a string", '"ping"', null],
    ["null", "null", null],
    ["a wrong jsonrpc", { jsonrpc: "1.0", id: 3, method: "ping" }, 3],
    ["a missing jsonrpc", { id: 3, method: "ping" }, 3],
    ["a non-string method", { jsonrpc: "2.0", id: 3, method: 5 }, 3],
    ["a null id", { jsonrpc: "2.0", id: null, method: "ping" }, null],
    ["a fractional id", { jsonrpc: "2.0", id: 1.5, method: "ping" }, null],
    ["array params", { jsonrpc: "2.0", id: 3, method: "ping", params: [] }, 3],
    ["no method at all", { jsonrpc: "2.0", id: 3 }, 3],
  ])("answers %s with -32600 invalid request", async (_label, body, id) => {
    const { status, json } = await post(server, body);
    expect(status).toBe(200);
    expect(json).toMatchObject({ jsonrpc: "2.0", id, error: { code: -32600 } });
  });

  it.each(["resources/list", "prompts/list", "logging/setLevel", "nope"])(
    "answers the unknown method %s with -32601",
    async (method) => {
      const { status, json } = await post(server, rpc(method, {}, 9));
      expect(status).toBe(200);
      expect(json).toMatchObject({ id: 9, error: { code: -32601 } });
    },
  );

  it("does not echo an arbitrary method name", async () => {
    const { json } = await post(server, rpc("<script>alert(1)</script>"));
    expect(JSON.stringify(json)).not.toContain("<script>");
  });

  it.each([
    ["initialize without protocolVersion", "initialize", {}],
    ["tools/call without name", "tools/call", {}],
    ["tools/call with array arguments", "tools/call", { name: "echo", arguments: [] }],
    ["tools/call of an unknown tool", "tools/call", { name: "missing_tool", arguments: {} }],
  ])("answers %s with -32602", async (_label, method, params) => {
    const { status, json } = await post(server, rpc(method, params));
    expect(status).toBe(200);
    expect(json).toMatchObject({ id: 1, error: { code: -32602 } });
  });

  it("answers a message nested too deeply with -32600", async () => {
    const deep = `${"[".repeat(100)}${"]".repeat(100)}`;
    const body = `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":${deep}}}`;
    const { status, json } = await post(server, body);
    expect(status).toBe(200);
    expect(json).toMatchObject({ id: null, error: { code: -32600 } });
  });

  it("turns a result that cannot be serialized into -32603", async () => {
    const bigint = createMcpServer({
      name: "s",
      version: "1",
      tools: [
        {
          name: "big",
          description: "Returns a bigint, which JSON cannot carry.",
          inputSchema: z.object({}),
          outputSchema: z.object({ value: z.unknown() }),
          handler: () => ({ value: 1n }),
          toText: () => "ok",
        },
      ],
    });
    const { status, json } = await post(
      bigint,
      rpc("tools/call", { name: "big", arguments: { text: "a" } }),
    );
    expect(status).toBe(200);
    expect(json).toMatchObject({ id: 1, error: { code: -32603, message: "Internal error." } });
  });
});

describe("Origin", () => {
  it("rejects an untrusted Origin with 403 and a JSON-RPC error", async () => {
    const { status, json } = await post(server, rpc("ping"), { origin: "http://evil.example" });
    expect(status).toBe(403);
    expect(json).toMatchObject({ jsonrpc: "2.0", id: null, error: { code: -32000 } });
  });

  it.each(["http://localhost:5173", "HTTP://LOCALHOST:5173", "http://localhost:5173/"])(
    "accepts the trusted origin written as %s",
    async (origin) => {
      expect((await post(server, rpc("ping"), { origin })).status).toBe(200);
    },
  );

  it("rejects the opaque origin null", async () => {
    expect((await post(server, rpc("ping"), { origin: "null" })).status).toBe(403);
  });

  it("rejects any Origin when no origin is trusted, and allows requests without one", async () => {
    const closed = createSampleServer();
    expect((await post(closed, rpc("ping"), { origin: "http://localhost:5173" })).status).toBe(403);
    expect((await post(closed, rpc("ping"))).status).toBe(200);
  });

  it('trusts every origin with ["*"]', async () => {
    const open = createSampleServer({ trustedOrigins: ["*"] });
    expect((await post(open, rpc("ping"), { origin: "https://anywhere.example" })).status).toBe(
      200,
    );
  });

  it("refuses a trusted origin that is not an origin", () => {
    expect(() => createSampleServer({ trustedOrigins: ["localhost"] })).toThrow(McpServerError);
  });
});

describe("Accept and Content-Type", () => {
  it.each([
    undefined,
    "",
    "*/*",
    "application/json",
    "application/*",
    "text/event-stream, application/json",
  ])("accepts Accept %j", async (accept) => {
    const response = await server.handle({
      method: "POST",
      headers: accept === undefined ? {} : { accept },
      body: JSON.stringify(rpc("ping")),
    });
    expect(response.status).toBe(200);
  });

  it.each(["text/event-stream", "text/html", "application/json;q=0"])(
    "answers Accept %j with 406",
    async (accept) => {
      const { status, json } = await post(server, rpc("ping"), { accept });
      expect(status).toBe(406);
      expect(json).toMatchObject({ id: null, error: { code: -32000 } });
    },
  );

  it.each(["text/plain", "application/x-www-form-urlencoded"])(
    "answers Content-Type %s with 415",
    async (contentType) => {
      const { status } = await post(server, rpc("ping"), { "content-type": contentType });
      expect(status).toBe(415);
    },
  );

  it("accepts a missing Content-Type and one with a charset", async () => {
    expect(
      (await server.handle({ method: "POST", headers: {}, body: JSON.stringify(rpc("ping")) }))
        .status,
    ).toBe(200);
    expect(
      (await post(server, rpc("ping"), { "content-type": "application/json; charset=utf-8" }))
        .status,
    ).toBe(200);
  });
});

describe("body size", () => {
  const small = createSampleServer({ maxBodyBytes: 100 });

  it("answers a body over the limit with 413 and a JSON-RPC error", async () => {
    const { status, json } = await post(small, rpc("ping", { pad: "x".repeat(100) }));
    expect(status).toBe(413);
    expect(json).toMatchObject({ jsonrpc: "2.0", id: null, error: { code: -32000 } });
  });

  it("counts bytes, not characters", async () => {
    const body = JSON.stringify(rpc("ping", { pad: "é".repeat(30) }));
    expect(body.length).toBeLessThanOrEqual(100);
    expect(new TextEncoder().encode(body).byteLength).toBeGreaterThan(100);
    expect((await post(small, body)).status).toBe(413);
  });

  it("answers 413 from Content-Length before reading the body", async () => {
    const response = await small.handle({ method: "POST", headers: { "content-length": "5000" } });
    expect(response.status).toBe(413);
  });

  it("defaults to 1 MiB", async () => {
    expect(server.maxBodyBytes).toBe(1_048_576);
    const { status } = await post(server, rpc("ping", { pad: "x".repeat(1_048_576) }));
    expect(status).toBe(413);
  });
});

describe("options", () => {
  it.each([
    ["an empty name", { name: "" }],
    ["a zero body limit", { maxBodyBytes: 0 }],
    ["a fractional depth", { maxJsonDepth: 1.5 }],
  ])("refuses %s with INVALID_OPTIONS", (_label, overrides) => {
    expect(() => createSampleServer(overrides)).toThrowError(
      expect.objectContaining({ code: "INVALID_OPTIONS" }),
    );
  });
});
