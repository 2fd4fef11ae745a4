import { anonymousAuth, createAuthContext } from "@svc/schema";
import { errorHandler, setCaller } from "@svc/schema/http";
import { closeFakeServers, serveOnLoopback } from "@svc/tooling/http-server";
import express from "express";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createEntityRouter } from "../src/express.js";
import { adminAuth, idempotencyMigrations } from "../src/index.js";
import { adminAs, databases, todoInput, useStore } from "./fixture.js";

// The entity routes in a third party's own express app: its own gate
// records the caller with setCaller (`x-user: admin` is the admin token
// acting for user-1), the router reads it with getCaller, @svc/schema/http's
// errorHandler answers the errors.

describe.each(databases)("createEntityRouter on $name", (database) => {
  const fixture = useStore(database, { migrate: false });
  let base = "";

  beforeEach(async () => {
    const { store } = fixture();
    await store.migrate({ packages: [idempotencyMigrations()] });
    const app = express();
    app.use((req, _res, next) => {
      const user = req.get("x-user");
      setCaller(
        req,
        user === "admin"
          ? adminAs("user-1")
          : user
            ? createAuthContext({ userId: user })
            : anonymousAuth,
      );
      next();
    });
    app.use(createEntityRouter(store));
    app.use(errorHandler<express.Request>());
    base = await serveOnLoopback(app);
  });
  afterEach(closeFakeServers);

  const send = (
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ) =>
    fetch(`${base}${path}`, {
      method,
      headers: { "x-user": "admin", ...headers },
      ...(body !== undefined && { body: JSON.stringify(body) }),
    });
  const codeOf = async (response: Response): Promise<string> =>
    ((await response.json()) as { error: { code: string } }).error.code;

  it("creates, reads, lists a page with X-Next-Cursor, patches and deletes a row", async () => {
    const created = await send("POST", "/api/entities/Todo", todoInput({ title: "a" }));
    expect(created.status).toBe(201);
    const { id } = (await created.json()) as { id: string };
    await send("POST", "/api/entities/Todo", todoInput({ title: "b" }));
    const page = await send("GET", "/api/entities/Todo?limit=1&order=title");
    expect(page.status).toBe(200);
    expect(page.headers.get("x-next-cursor")).toBeTruthy();
    expect(((await page.json()) as { title: string }[]).map((row) => row.title)).toEqual(["a"]);
    const patched = await send("PATCH", `/api/entities/Todo/${id}`, { done: true });
    expect(((await patched.json()) as { done: boolean }).done).toBe(true);
    const deleted = await send("DELETE", `/api/entities/Todo/${id}`);
    expect(await deleted.json()).toEqual({ deleted: true, id });
    const gone = await send("GET", `/api/entities/Todo/${id}`);
    expect(gone.status).toBe(404);
    expect(await codeOf(gone)).toBe("NOT_FOUND");
  });

  it.each([
    [
      "an unknown query parameter",
      "GET",
      "/api/entities/Todo?bogus=1",
      undefined,
      400,
      "INVALID_QUERY",
    ],
    [
      "a where that is not an object",
      "GET",
      "/api/entities/Todo?where=[1]",
      undefined,
      400,
      "INVALID_QUERY",
    ],
    ["a body that is not an object", "POST", "/api/entities/Todo", [1], 400, "INVALID_JSON"],
  ])("answers %s with its code", async (_case, method, path, body, status, code) => {
    const response = await send(method, path, body);
    expect(response.status).toBe(status);
    expect(await codeOf(response)).toBe(code);
  });

  it("applies a write once per Idempotency-Key and replays the recorded answer", async () => {
    const headers = { "idempotency-key": "k1" };
    const first = await send("POST", "/api/entities/Todo", todoInput(), headers);
    expect(first.status).toBe(201);
    const again = await send("POST", "/api/entities/Todo", todoInput(), headers);
    expect(again.status).toBe(201);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(await again.text()).toBe(await first.text());
    const other = await send("POST", "/api/entities/Todo", todoInput({ title: "x" }), headers);
    expect(other.status).toBe(409);
    expect(await codeOf(other)).toBe("IDEMPOTENCY_KEY_REUSED");
    expect((await fixture().store.reader(adminAuth).query("Todo")).rows).toHaveLength(1);
  });

  it("inserts a batch in one transaction, for the admin token only", async () => {
    const operations = [
      { op: "insert", entity: "Todo", data: todoInput({ title: "one" }) },
      { op: "insert", entity: "Todo", data: todoInput({ title: "two", priority: "none" }) },
    ];
    const refused = await send("POST", "/api/batch", { operations }, { "x-user": "u2" });
    expect(refused.status).toBe(403);
    expect(await codeOf(refused)).toBe("ADMIN_REQUIRED");
    const bad = await send("POST", "/api/batch", { operations });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { message: string } }).error.message).toMatch(
      /^operations\[1\]: /,
    );
    expect((await fixture().store.reader(adminAuth).query("Todo")).rows).toHaveLength(0);
    const good = await send("POST", "/api/batch", { operations: operations.slice(0, 1) });
    expect(good.status).toBe(200);
    expect(((await good.json()) as { ids: string[] }).ids).toHaveLength(1);
    const malformed = await send("POST", "/api/batch", { operations: [] });
    expect(await codeOf(malformed)).toBe("INVALID_BATCH");
  });
});
