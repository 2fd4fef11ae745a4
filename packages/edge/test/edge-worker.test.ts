import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ADMIN_TOKEN, type EdgeWorker, fixture, startEdgeWorker } from "./edge-worker.js";

// The notes fixture app built with `svc-edge build` and run in workerd on a
// local D1 database: the function, entity, policy, auth and agent-API cases
// the server answers, and the documented errors for what the edge does not serve.

let worker: EdgeWorker;
let alice: string;
let bob: string;

async function register(email: string): Promise<string> {
  const answer = await worker.call("POST", "/api/auth/password/register", {
    body: { email, password: "a long enough password" },
  });
  expect(answer.status).toBe(200);
  return answer.body.token as string;
}

async function noteRows(): Promise<number> {
  const result = await worker.d1.prepare('select count(*) as n from "Note"').all<{ n: number }>();
  return result.results[0]?.n ?? -1;
}

beforeAll(async () => {
  worker = await startEdgeWorker(fixture("notes"));
  alice = await register("alice@example.com");
  bob = await register("bob@example.com");
});

afterAll(async () => {
  await worker?.[Symbol.asyncDispose]();
});

describe("functions", () => {
  it("runs a mutation whose reads see its own writes, and a plain .js query", async () => {
    const written = await worker.call("POST", "/api/fn/writeNote", {
      token: alice,
      body: { slug: "first", body: "hello" },
    });
    expect(written.status).toBe(200);
    expect(written.body).toMatchObject({ edits: 2 });
    const mine = await worker.call("POST", "/api/fn/myNotes", { token: alice });
    expect(mine.body).toEqual([{ slug: "first", edits: 2 }]);
    // Row policies: Bob sees none of Alice's notes.
    expect((await worker.call("POST", "/api/fn/myNotes", { token: bob })).body).toEqual([]);
  });

  it("writes nothing of a mutation that fails after writing", async () => {
    const before = await noteRows();
    const failed = await worker.call("POST", "/api/fn/writeNote", {
      token: alice,
      body: { slug: "doomed", body: "x", fail: true },
    });
    expect(failed).toEqual({
      status: 409,
      body: {
        error: { code: "ASKED_TO_FAIL", message: "The caller asked this mutation to fail." },
      },
    });
    expect(await noteRows()).toBe(before);
    const tags = await worker.d1.prepare('select count(*) as n from "Tag"').all<{ n: number }>();
    expect(tags.results[0]?.n).toBe(before);
  });

  it("answers a unique violation inside a mutation with 409 UNIQUE_VIOLATION and writes nothing", async () => {
    const before = await noteRows();
    const again = await worker.call("POST", "/api/fn/writeNote", {
      token: bob,
      body: { slug: "first", body: "mine too" },
    });
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe("UNIQUE_VIOLATION");
    expect(await noteRows()).toBe(before);
  });

  it("serializes concurrent read-modify-write mutations (losers run again)", async () => {
    const created = await worker.call("POST", "/api/fn/writeNote", {
      token: bob,
      body: { slug: "counter", body: "" },
    });
    const id = created.body.id as string;
    // Five at once: each loses at most four times (every loss is another's
    // commit), within the five attempts a write gets.
    const answers = await Promise.all(
      Array.from({ length: 5 }, () =>
        worker.call("POST", "/api/fn/bumpNote", { token: bob, body: { id } }),
      ),
    );
    expect(answers.map((answer) => answer.status)).toEqual(Array(5).fill(200));
    expect(answers.map((answer) => answer.body.edits).sort((a, b) => a - b)).toEqual([
      3, 4, 5, 6, 7,
    ]);
  });

  it("keeps guests, anonymous callers and bad arguments out with the server's codes", async () => {
    const guest = (await worker.call("POST", "/api/auth/guest")).body.token as string;
    expect((await worker.call("POST", "/api/fn/ping", { token: guest })).body).toEqual({
      pong: true,
    });
    const cases = [
      { token: guest, fn: "writeNote", body: { slug: "g", body: "g" }, status: 403 },
      { token: undefined, fn: "writeNote", body: { slug: "g", body: "g" }, status: 401 },
      { token: alice, fn: "writeNote", body: { slug: 5 }, status: 400 },
      { token: alice, fn: "noSuchFunction", body: {}, status: 404 },
    ];
    for (const { token, fn, body, status } of cases) {
      const answer = await worker.call("POST", `/api/fn/${fn}`, {
        ...(token !== undefined && { token }),
        body,
      });
      expect(answer.status, fn).toBe(status);
      expect(answer.body.error.code).toMatch(/^[A-Z_]+$/);
    }
  });
});

describe("entity routes and batch", () => {
  it("creates, lists, reads, patches and deletes under the row policies", async () => {
    const created = await worker.call("POST", "/api/entities/Note", {
      token: alice,
      body: { slug: "rest", body: "via REST", edits: 0 },
    });
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    const page = await worker.fetch("/api/entities/Note?limit=1&order=slug", {
      headers: { authorization: `Bearer ${alice}` },
    });
    expect(page.status).toBe(200);
    expect(((await page.json()) as unknown[]).length).toBe(1);
    expect(page.headers.get("x-next-cursor")).not.toBeNull();
    expect((await worker.call("GET", `/api/entities/Note/${id}`, { token: bob })).status).toBe(404);
    expect(
      (await worker.call("PATCH", `/api/entities/Note/${id}`, { token: bob, body: { body: "no" } }))
        .status,
    ).toBe(404);
    const patched = await worker.call("PATCH", `/api/entities/Note/${id}`, {
      token: alice,
      body: { body: "edited" },
    });
    expect(patched.body).toMatchObject({ id, body: "edited" });
    // Tags may point only at the caller's own notes (an exists(...) policy).
    const tag = await worker.call("POST", "/api/entities/Tag", {
      token: bob,
      body: { label: "x", noteId: id },
    });
    expect(tag.status).toBe(403);
    expect(tag.body.error.code).toBe("POLICY_DENIED");
    expect(await worker.call("DELETE", `/api/entities/Note/${id}`, { token: alice })).toEqual({
      status: 200,
      body: { deleted: true, id },
    });
  });

  it("inserts a batch in one transaction with the admin token, or nothing", async () => {
    const before = await noteRows();
    const ok = await worker.call("POST", "/api/batch", {
      token: ADMIN_TOKEN,
      body: {
        operations: [
          { op: "insert", entity: "Note", data: { slug: "b1", body: "", ownerId: "u1", edits: 0 } },
          { op: "insert", entity: "Note", data: { slug: "b2", body: "", ownerId: "u1", edits: 0 } },
        ],
      },
    });
    expect(ok.status).toBe(200);
    expect(ok.body.ids).toHaveLength(2);
    const bad = await worker.call("POST", "/api/batch", {
      token: ADMIN_TOKEN,
      body: {
        operations: [
          { op: "insert", entity: "Note", data: { slug: "b3", body: "", ownerId: "u1", edits: 0 } },
          { op: "insert", entity: "Note", data: { slug: "b1", body: "", ownerId: "u1", edits: 0 } },
        ],
      },
    });
    expect(bad.status).toBe(409);
    expect(bad.body.error.message).toMatch(/^operations\[1\]: /);
    expect(await noteRows()).toBe(before + 2);
    const denied = await worker.call("POST", "/api/batch", {
      token: alice,
      body: { operations: [{ op: "insert", entity: "Note", data: {} }] },
    });
    expect(denied.body.error.code).toBe("ADMIN_REQUIRED");
  });
});

describe("auth", () => {
  it("signs in with a magic code sent through the webhook email provider", async () => {
    const sent = await worker.call("POST", "/api/auth/magic/send", {
      body: { email: "carol@example.com" },
    });
    expect(sent).toEqual({ status: 200, body: { sent: true, email: "carol@example.com" } });
    const email = worker.emails.at(-1);
    expect(email?.to).toBe("carol@example.com");
    const code = /\b(\d{6})\b/.exec(email?.body ?? "")?.[1];
    const wrong = await worker.call("POST", "/api/auth/magic/verify", {
      body: { email: "carol@example.com", code: code === "000000" ? "111111" : "000000" },
    });
    expect(wrong.status).toBe(401);
    expect(wrong.body.error.code).toBe("INVALID_CODE");
    const cooldown = await worker.call("POST", "/api/auth/magic/send", {
      body: { email: "carol@example.com" },
    });
    expect(cooldown.status).toBe(429);
    const verified = await worker.call("POST", "/api/auth/magic/verify", {
      body: { email: "carol@example.com", code },
    });
    expect(verified.status).toBe(200);
    const me = await worker.call("GET", "/api/auth/me", { token: verified.body.token });
    expect(me.body.user).toMatchObject({ email: "carol@example.com" });
    expect(me.body.user.emailVerified).toEqual(expect.any(String));
  });

  it("logs in with a password and refuses a wrong one", async () => {
    const wrong = await worker.call("POST", "/api/auth/password/login", {
      body: { email: "alice@example.com", password: "not the password" },
    });
    expect(wrong.status).toBe(401);
    expect(wrong.body.error.code).toBe("INVALID_CREDENTIALS");
    const right = await worker.call("POST", "/api/auth/password/login", {
      body: { email: "alice@example.com", password: "a long enough password" },
    });
    expect(right.body.token).toMatch(/^svc_/);
  });

  it("creates, uses, lists and revokes API keys; a key cannot make keys", async () => {
    const created = await worker.call("POST", "/api/auth/api-keys", {
      token: alice,
      body: { name: "ci" },
    });
    expect(created.status).toBe(200);
    const key = created.body.key as string;
    expect(key).toMatch(/^pk\.key_/);
    expect((await worker.call("POST", "/api/fn/myNotes", { token: key })).status).toBe(200);
    const byKey = await worker.call("POST", "/api/auth/api-keys", {
      token: key,
      body: { name: "x" },
    });
    expect(byKey.status).toBe(403);
    expect(byKey.body.error.code).toBe("API_KEY_AUTH_FORBIDDEN");
    const listed = await worker.call("GET", "/api/auth/api-keys", { token: alice });
    expect(listed.body.map((entry: { id: string }) => entry.id)).toContain(created.body.id);
    expect(
      (await worker.call("DELETE", `/api/auth/api-keys/${created.body.id}`, { token: alice })).body,
    ).toEqual({ revoked: true });
    const revoked = await worker.call("POST", "/api/fn/myNotes", { token: key });
    expect(revoked.status).toBe(401);
    expect(revoked.body.error.code).toBe("INVALID_API_KEY");
  });

  it("mints a JWT that calls functions, refuses a forged one, and signs out", async () => {
    const minted = await worker.call("POST", "/api/auth/jwt", { token: alice });
    expect(minted.status).toBe(200);
    const mine = await worker.call("POST", "/api/fn/myNotes", { token: minted.body.token });
    expect(mine.status).toBe(200);
    const forged = `${(minted.body.token as string).slice(0, -4)}AAAA`;
    const refused = await worker.call("POST", "/api/fn/myNotes", { token: forged });
    expect(refused.status).toBe(401);
    expect(refused.body.error.code).toBe("INVALID_JWT");
    const session = (await worker.call("POST", "/api/auth/guest")).body.token as string;
    expect((await worker.call("DELETE", "/api/auth/session", { token: session })).status).toBe(200);
    const after = await worker.call("POST", "/api/fn/ping", { token: session });
    expect(after.status).toBe(401);
    expect(after.body.error.code).toBe("INVALID_TOKEN");
  });
});

describe("agent API and MCP", () => {
  it("lists, searches and reads the bundled docs", async () => {
    const list = await worker.call("GET", "/agent/v1/docs");
    expect(list.body.count).toBeGreaterThan(10);
    const search = await worker.call("GET", "/agent/v1/docs/search?q=edge%20worker&limit=3");
    expect(search.body.results.map((entry: { path: string }) => entry.path)).toContain(
      "deployment/edge-and-managed",
    );
    const page = await worker.fetch("/agent/v1/docs/read?path=deployment/edge-and-managed");
    expect(page.headers.get("content-type")).toMatch(/^text\/markdown/);
    expect(await page.text()).toMatch(/^# /);
    expect((await worker.call("GET", "/agent/v1/docs/read?path=nope/nope")).status).toBe(404);
    const noQuery = await worker.call("GET", "/agent/v1/docs/search");
    expect(noQuery.status).toBe(400);
    expect(noQuery.body.error.code).toEqual(expect.any(String));
    expect((await worker.call("GET", "/agent/v1/templates")).body.count).toBeGreaterThan(0);
    expect((await worker.fetch("/agent/v1/skill")).status).toBe(200);
  });

  it("answers MCP tools/list and tools/call, and 405 for GET", async () => {
    const post = (body: unknown) =>
      worker.fetch("/mcp", {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
        },
        body: JSON.stringify(body),
      });
    const tools = (await (await post({ jsonrpc: "2.0", id: 1, method: "tools/list" })).json()) as {
      result: { tools: { name: string }[] };
    };
    expect(tools.result.tools.map((tool) => tool.name).sort()).toEqual([
      "get_svc_skill",
      "list_svc_templates",
      "read_svc_doc",
      "search_svc_docs",
    ]);
    const called = await post({
      jsonrpc: "2.0",
      id: 2,
      method: "tools/call",
      params: { name: "search_svc_docs", arguments: { query: "policies" } },
    });
    expect(called.status).toBe(200);
    const get = await worker.fetch("/mcp");
    expect(get.status).toBe(405);
    expect(get.headers.get("allow")).toMatch(/POST/);
  });
});

describe("what the edge does not serve", () => {
  it.each([
    ["GET", "/ws"],
    ["GET", "/events"],
    ["GET", "/api/sync/pull"],
    ["GET", "/shard/chat/room1"],
    ["GET", "/api/admin/jobs"],
    ["POST", "/api/files/uploads"],
    ["GET", "/studio"],
    ["POST", "/api/billing/checkout"],
    ["GET", "/api/auth/login/github"],
    ["GET", "/metrics"],
  ])("%s %s answers 501 NOT_AVAILABLE_ON_EDGE naming what to use", async (method, path) => {
    const answer = await worker.call(method, path);
    expect(answer.status).toBe(501);
    expect(answer.body.error.code).toBe("NOT_AVAILABLE_ON_EDGE");
    expect(answer.body.error.message).toMatch(/svc server|svc dev|Workers|magic codes/);
  });

  it("answers bad requests with the server's envelope, never a 500", async () => {
    expect((await worker.call("GET", "/health")).body).toMatchObject({ status: "ok" });
    expect((await worker.call("GET", "/readyz")).body).toEqual({ status: "ready" });
    const missing = await worker.call("GET", "/nowhere");
    expect(missing).toEqual({
      status: 404,
      body: { error: { code: "ROUTE_NOT_FOUND", message: "No route for GET /nowhere." } },
    });
    const badJSON = await worker.fetch("/api/fn/myNotes", {
      method: "POST",
      headers: { authorization: `Bearer ${alice}`, "content-type": "application/json" },
      body: "{not json",
    });
    expect(badJSON.status).toBe(400);
    expect(((await badJSON.json()) as { error: { code: string } }).error.code).toBe("INVALID_JSON");
    const huge = await worker.fetch("/api/fn/myNotes", {
      method: "POST",
      headers: { authorization: `Bearer ${alice}`, "content-type": "application/json" },
      body: JSON.stringify({ pad: "x".repeat(1_100_000) }),
    });
    expect(huge.status).toBe(413);
    const badBearer = await worker.call("POST", "/api/fn/myNotes", { token: "svc_nope" });
    expect(badBearer.status).toBe(401);
  });
});
