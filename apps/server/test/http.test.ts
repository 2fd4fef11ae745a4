import { testDatabases } from "@svc/tooling/databases";
import { beforeAll, describe, expect, it } from "vitest";
import type { RunningServer } from "../src/start-server.js";
import { appServerPerTest, startTestServerOn } from "./app-server.js";
import { ADMIN_TOKEN, adminRequest } from "./fixtures.js";

describe.each(testDatabases())("application API on $name", (database) => {
  const app = appServerPerTest(database, { scope: "suite", start: startTestServerOn });
  let server: RunningServer;

  beforeAll(() => {
    server = app.server;
  });

  async function errorOf(
    response: Response,
  ): Promise<{ status: number; code: string; message: string }> {
    const body = (await response.json()) as { error: { code: string; message: string } };
    expect(Object.keys(body)).toEqual(["error"]);
    expect(Object.keys(body.error).sort()).toEqual(["code", "message"]);
    return { status: response.status, ...body.error };
  }

  describe("operational endpoints", () => {
    it("answers /health with status and uptime", async () => {
      const response = await fetch(`${server.url}/health`);
      expect(response.status).toBe(200);
      const body = (await response.json()) as { status: string; uptime_seconds: number };
      expect(body.status).toBe("ok");
      expect(Number.isInteger(body.uptime_seconds)).toBe(true);
    });

    it("answers /readyz after pinging the database", async () => {
      const response = await fetch(`${server.url}/readyz`);
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual({ status: "ready" });
    });

    it("serves Prometheus text with request counts by route template", async () => {
      await adminRequest(server, "POST", "/api/fn/createList", { title: "metrics" });
      const response = await fetch(`${server.url}/metrics`, { headers: { accept: "text/plain" } });
      expect(response.headers.get("content-type")).toMatch(/^text\/plain/);
      const text = await response.text();
      expect(text).toContain("process_cpu_user_seconds_total");
      expect(text).toMatch(
        /svc_http_requests_total\{method="POST",route="\/api\/fn\/:name",status="200"\} \d+/,
      );
      expect(text).toContain("svc_http_request_duration_seconds_bucket");
    });
  });

  describe("functions", () => {
    it("runs a mutation and a query with the admin token", async () => {
      const list = await adminRequest(server, "POST", "/api/fn/createList", { title: "Groceries" });
      expect(list.status).toBe(200);
      const { id: listId } = (await list.json()) as { id: string };
      expect(listId).toMatch(/^[0-9a-f]{40}$/);

      const created = await adminRequest(server, "POST", "/api/fn/createTodo", {
        title: "Milk",
        listId,
        ownerId: "user-1",
      });
      expect(created.status).toBe(200);

      const page = await adminRequest(server, "POST", "/api/fn/listTodos", { listId });
      const body = (await page.json()) as { rows: { title: string; ownerId: string }[] };
      expect(body.rows).toEqual([expect.objectContaining({ title: "Milk", ownerId: "user-1" })]);
    });

    it("answers an unknown function with 404 FUNCTION_NOT_FOUND", async () => {
      const error = await errorOf(await adminRequest(server, "POST", "/api/fn/nope", {}));
      expect(error).toMatchObject({ status: 404, code: "FUNCTION_NOT_FOUND" });
    });

    it("answers invalid arguments with 400 INVALID_ARGS", async () => {
      const error = await errorOf(
        await adminRequest(server, "POST", "/api/fn/createList", { title: 7 }),
      );
      expect(error).toMatchObject({ status: 400, code: "INVALID_ARGS" });
    });

    it("passes a function's own error code through", async () => {
      const response = await adminRequest(server, "POST", "/api/fn/createTodo", {
        title: "x",
        listId: "0".repeat(40),
        ownerId: "u",
      });
      expect(await errorOf(response)).toMatchObject({ status: 404, code: "LIST_NOT_FOUND" });
    });

    it("requires a caller", async () => {
      const response = await fetch(`${server.url}/api/fn/createList`, {
        method: "POST",
        body: JSON.stringify({ title: "x" }),
      });
      expect(await errorOf(response)).toMatchObject({ status: 401, code: "AUTH_REQUIRED" });
    });
  });

  describe("request bodies and routing", () => {
    it("answers a body that is not JSON with 400 INVALID_JSON", async () => {
      const response = await fetch(`${server.url}/api/fn/createList`, {
        method: "POST",
        headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" },
        body: "{not json",
      });
      expect(await errorOf(response)).toMatchObject({ status: 400, code: "INVALID_JSON" });
    });

    // The common body is read without express.json (issue #14); it must
    // answer as express.json did: BOM dropped, JSON whitespace first, any or
    // no content type, strict (an object or array), the same JSON headers.
    it.each([
      ["a BOM", "application/json", '\uFEFF{"title":"bom"}', "bom"],
      ["leading whitespace", "application/json; charset=utf-8", ' \t\r\n{"title":"ws"}', "ws"],
      ["no content type", undefined, '{"title":"plain"}', "plain"],
      ["multi-byte text", "application/json;charset=UTF-8", '{"title":"ünï 🍰"}', "ünï 🍰"],
    ])(
      "reads a body with %s and answers JSON with its byte length",
      async (_, type, body, title) => {
        const response = await fetch(`${server.url}/api/fn/createList`, {
          method: "POST",
          headers: {
            authorization: `Bearer ${ADMIN_TOKEN}`,
            ...(type === undefined ? {} : { "content-type": type }),
          },
          body: type === undefined ? new Blob([body]) : body,
        });
        expect(response.status).toBe(200);
        expect(response.headers.get("content-type")).toBe("application/json; charset=utf-8");
        const text = await response.text();
        expect(Number(response.headers.get("content-length"))).toBe(Buffer.byteLength(text));
        const { id } = JSON.parse(text) as { id: string };
        const read = await adminRequest(server, "GET", `/api/entities/List/${id}`);
        expect(((await read.json()) as { title: string }).title).toBe(title);
      },
    );

    it.each([
      ["a number", "1"],
      ["a string", '"title"'],
      ["a cut-off object", '{"title":'],
    ])("answers a body that is %s with 400 INVALID_JSON", async (_, body) => {
      const response = await fetch(`${server.url}/api/fn/createList`, {
        method: "POST",
        headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" },
        body,
      });
      expect(await errorOf(response)).toMatchObject({ status: 400, code: "INVALID_JSON" });
    });

    it("reads an empty body as {} (an argument error, not a JSON one)", async () => {
      const response = await fetch(`${server.url}/api/fn/createList`, {
        method: "POST",
        headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
        body: new Blob([""]),
      });
      expect(await errorOf(response)).toMatchObject({ status: 400, code: "INVALID_ARGS" });
    });

    it("answers a body nested too deeply with 400 INVALID_JSON, not a stack overflow", async () => {
      const response = await fetch(`${server.url}/api/fn/createList`, {
        method: "POST",
        headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
        body: `{"title":${"[".repeat(200_000)}${"]".repeat(200_000)}}`,
      });
      expect(await errorOf(response)).toMatchObject({ status: 400, code: "INVALID_JSON" });
    });

    it("answers a body over the limit with 413 PAYLOAD_TOO_LARGE", async () => {
      const response = await adminRequest(server, "POST", "/api/fn/createList", {
        title: "x".repeat(2 * 1024 * 1024),
      });
      expect(await errorOf(response)).toMatchObject({ status: 413, code: "PAYLOAD_TOO_LARGE" });
    });

    it("answers an unknown route with 404 ROUTE_NOT_FOUND", async () => {
      const response = await fetch(`${server.url}/nowhere`);
      expect(await errorOf(response)).toMatchObject({ status: 404, code: "ROUTE_NOT_FOUND" });
    });

    // Regression: the /api gate matched its prefix case-sensitively while
    // express routes did not, so `/API/...` reached a route unauthenticated.
    it("does not route /API/... around the gate", async () => {
      const response = await fetch(`${server.url}/API/fn/createList`, { method: "POST" });
      expect(await errorOf(response)).toMatchObject({ status: 404, code: "ROUTE_NOT_FOUND" });
    });

    it.each([
      ["an unknown token", "Bearer nope"],
      ["a header that is not a bearer", "Basic abc"],
    ])("answers %s with 401 INVALID_TOKEN", async (_label, authorization) => {
      const response = await fetch(`${server.url}/api/entities/Todo`, {
        headers: { authorization },
      });
      expect(await errorOf(response)).toMatchObject({ status: 401, code: "INVALID_TOKEN" });
    });
  });

  describe("entities", () => {
    it("creates, reads, patches, lists and deletes a row", async () => {
      const created = await adminRequest(server, "POST", "/api/entities/List", { title: "CRUD" });
      expect(created.status).toBe(201);
      const row = (await created.json()) as { id: string; title: string; createdAt: string };
      expect(row.title).toBe("CRUD");
      expect(row.createdAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);

      const read = await adminRequest(server, "GET", `/api/entities/List/${row.id}`);
      expect(await read.json()).toEqual(row);

      const patched = await adminRequest(server, "PATCH", `/api/entities/List/${row.id}`, {
        title: "CRUD 2",
      });
      expect(((await patched.json()) as { title: string }).title).toBe("CRUD 2");

      const listed = await adminRequest(
        server,
        "GET",
        `/api/entities/List?where=${encodeURIComponent(JSON.stringify({ title: "CRUD 2" }))}`,
      );
      expect(((await listed.json()) as { id: string }[]).map((r) => r.id)).toEqual([row.id]);

      const deleted = await adminRequest(server, "DELETE", `/api/entities/List/${row.id}`);
      expect(await deleted.json()).toEqual({ deleted: true, id: row.id });
      const gone = await adminRequest(server, "GET", `/api/entities/List/${row.id}`);
      expect(await errorOf(gone)).toMatchObject({ status: 404, code: "NOT_FOUND" });
    });

    it("pages through a list with X-Next-Cursor", async () => {
      const title = `page-${Date.now()}`;
      const batch = await adminRequest(server, "POST", "/api/batch", {
        operations: Array.from({ length: 5 }, () => ({
          op: "insert",
          entity: "List",
          data: { title },
        })),
      });
      expect(batch.status).toBe(200);
      const where = encodeURIComponent(JSON.stringify({ title }));
      const seen: string[] = [];
      let cursor: string | null = null;
      for (let i = 0; i < 5; i += 1) {
        const query: string = `/api/entities/List?limit=2&where=${where}${cursor ? `&cursor=${cursor}` : ""}`;
        const response = await adminRequest(server, "GET", query);
        seen.push(...((await response.json()) as { id: string }[]).map((r) => r.id));
        cursor = response.headers.get("x-next-cursor");
        if (cursor === null) break;
      }
      expect(seen).toHaveLength(5);
      expect(new Set(seen).size).toBe(5);
    });

    it.each([
      ["a limit out of range", "limit=5000"],
      ["an unknown parameter", "colour=red"],
      ["where that is not JSON", "where=%7Bnope"],
    ])("answers %s with 400 INVALID_QUERY", async (_label, query) => {
      const response = await adminRequest(server, "GET", `/api/entities/List?${query}`);
      expect(await errorOf(response)).toMatchObject({ status: 400, code: "INVALID_QUERY" });
    });

    it("answers an unknown entity with 404 ENTITY_NOT_FOUND", async () => {
      const response = await adminRequest(server, "GET", "/api/entities/Ghost");
      expect(await errorOf(response)).toMatchObject({ status: 404, code: "ENTITY_NOT_FOUND" });
    });

    it("answers a malformed id with 400 INVALID_ID", async () => {
      const response = await adminRequest(server, "GET", "/api/entities/List/NOT-AN-ID");
      expect(await errorOf(response)).toMatchObject({ status: 400, code: "INVALID_ID" });
    });

    it("denies an entity without a policy to everyone but the admin token", async () => {
      const list = await fetch(`${server.url}/api/entities/List`);
      expect(await errorOf(list)).toMatchObject({ status: 403, code: "POLICY_DENIED" });
      const insert = await fetch(`${server.url}/api/entities/List`, {
        method: "POST",
        body: JSON.stringify({ title: "sneaky" }),
      });
      expect(await errorOf(insert)).toMatchObject({ status: 403, code: "POLICY_DENIED" });
    });

    it("applies the Todo policy: hidden rows are absent, a refused insert is 403", async () => {
      const created = await adminRequest(server, "POST", "/api/entities/Todo", {
        title: "private",
        done: false,
        priority: "low",
        ownerId: "someone",
      });
      const todo = (await created.json()) as { id: string };
      const list = await fetch(`${server.url}/api/entities/Todo`);
      expect(list.status).toBe(200);
      expect(await list.json()).toEqual([]);
      const one = await fetch(`${server.url}/api/entities/Todo/${todo.id}`);
      expect(await errorOf(one)).toMatchObject({ status: 404, code: "NOT_FOUND" });
      const insert = await fetch(`${server.url}/api/entities/Todo`, {
        method: "POST",
        body: JSON.stringify({ title: "x", done: false, priority: "low", ownerId: "x" }),
      });
      expect(await errorOf(insert)).toMatchObject({ status: 403, code: "POLICY_DENIED" });
      const patch = await fetch(`${server.url}/api/entities/Todo/${todo.id}`, {
        method: "PATCH",
        body: JSON.stringify({ done: true }),
      });
      expect(await errorOf(patch)).toMatchObject({ status: 404, code: "NOT_FOUND" });
    });
  });

  describe("batch", () => {
    it("inserts every operation and answers the ids in order", async () => {
      const response = await adminRequest(server, "POST", "/api/batch", {
        operations: [
          { op: "insert", entity: "List", data: { title: "b1" } },
          { op: "insert", entity: "List", data: { id: "b".repeat(40), title: "b2" } },
        ],
      });
      const { ids } = (await response.json()) as { ids: string[] };
      expect(ids).toHaveLength(2);
      expect(ids[1]).toBe("b".repeat(40));
    });

    it("writes nothing when one operation fails and names its index", async () => {
      const title = `atomic-${Date.now()}`;
      const response = await adminRequest(server, "POST", "/api/batch", {
        operations: [
          { op: "insert", entity: "List", data: { title } },
          { op: "insert", entity: "List", data: { title, bogus: 1 } },
        ],
      });
      const error = await errorOf(response);
      expect(error.status).toBe(400);
      expect(error.message).toMatch(/^operations\[1\]: /);
      const where = encodeURIComponent(JSON.stringify({ title }));
      const listed = await adminRequest(server, "GET", `/api/entities/List?where=${where}`);
      expect(await listed.json()).toEqual([]);
    });

    it("answers a malformed batch with 400 INVALID_BATCH", async () => {
      const response = await adminRequest(server, "POST", "/api/batch", {
        operations: [{ op: "drop" }],
      });
      expect(await errorOf(response)).toMatchObject({ status: 400, code: "INVALID_BATCH" });
    });

    it("needs the admin token", async () => {
      const response = await fetch(`${server.url}/api/batch`, {
        method: "POST",
        body: JSON.stringify({
          operations: [{ op: "insert", entity: "List", data: { title: "x" } }],
        }),
      });
      expect((await errorOf(response)).status).toBe(401);
    });
  });

  describe("bad input never reaches a 500", () => {
    const todo = { title: "t", done: false, priority: "low", ownerId: "u" };
    it.each([
      ["POST", "/api/entities/Todo", { ...todo, title: 42 }],
      ["POST", "/api/entities/Todo", { ...todo, done: "yes" }],
      ["POST", "/api/entities/Todo", { ...todo, priority: "urgent" }],
      ["POST", "/api/entities/Todo", { ...todo, createdAt: "yesterday" }],
      ["POST", "/api/entities/Todo", { ...todo, listId: "x".repeat(5000) }],
      ["POST", "/api/entities/Todo", { ...todo, title: { nested: ["object"] } }],
      ["POST", "/api/entities/Todo", { ...todo, id: "../../etc/passwd" }],
      ["POST", "/api/entities/Todo", { ...todo, __proto__: { admin: true }, constructor: 1 }],
      ["POST", "/api/entities/Todo", [todo]],
      ["POST", "/api/entities/Todo", null],
      ["POST", "/api/entities/Todo", "just a string"],
      ["POST", "/api/entities/Todo%00", todo],
      ["PATCH", `/api/entities/Todo/${"a".repeat(40)}`, { done: null }],
      ["PATCH", `/api/entities/Todo/${"a".repeat(40)}`, []],
      ["DELETE", "/api/entities/Todo/'%20OR%201=1--", undefined],
      ["GET", "/api/entities/Todo?limit=abc", undefined],
      ["GET", "/api/entities/Todo?limit=1&limit=2", undefined],
      ["GET", "/api/entities/Todo?order=-", undefined],
      ["GET", "/api/entities/Todo?order=nope", undefined],
      ["GET", "/api/entities/Todo?cursor=%25%25%25", undefined],
      ["GET", "/api/entities/Todo?cursor=eyJ2IjpbMSwyXX0", undefined],
      ["GET", `/api/entities/Todo?where=${encodeURIComponent('{"title":{"$gt":""}}')}`, undefined],
      ["GET", `/api/entities/Todo?where=${encodeURIComponent('{"meta":1}')}`, undefined],
      ["GET", `/api/entities/Todo?where=${encodeURIComponent('{"done":"true"}')}`, undefined],
      ["GET", `/api/entities/Todo?where=${encodeURIComponent("[1]")}`, undefined],
      ["POST", "/api/fn/createList", []],
      ["POST", "/api/fn/createList", "str"],
      ["POST", "/api/fn/createList", { title: "x".repeat(300) }],
      ["POST", "/api/fn/toggleTodo", { id: "nope" }],
      ["POST", "/api/fn/listTodos", { cursor: "garbage" }],
      ["POST", "/api/fn/listTodos", { limit: 1e308 }],
      ["POST", "/api/fn/%E0%A4%A", {}],
      [
        "POST",
        "/api/batch",
        { operations: [{ op: "insert", entity: "Todo", data: { title: 1 } }] },
      ],
      [
        "POST",
        "/api/batch",
        {
          operations: new Array(1001).fill({ op: "insert", entity: "List", data: { title: "x" } }),
        },
      ],
    ])("%s %s answers a 4xx envelope", async (method, path, body) => {
      const response = await adminRequest(server, method, path, body);
      expect(response.status).toBeGreaterThanOrEqual(400);
      expect(response.status).toBeLessThan(500);
      const text = await response.text();
      expect(JSON.parse(text)).toEqual({
        error: { code: expect.stringMatching(/^[A-Z][A-Z0-9_]*$/), message: expect.any(String) },
      });
      expect(text).not.toMatch(/select |insert into|sqlite|at [\w.]+ \(/i);
    });
  });

  it("does not mount the dev reset endpoint outside dev mode", async () => {
    const response = await adminRequest(server, "POST", "/api/__test__/reset");
    expect(await errorOf(response)).toMatchObject({ status: 404, code: "ROUTE_NOT_FOUND" });
  });
});
