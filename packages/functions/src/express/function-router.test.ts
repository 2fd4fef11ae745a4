import { adminAuth, anonymousAuth, createAuthContext } from "@svc/schema";
import { errorHandler, setCaller } from "@svc/schema/http";
import { idempotencyMigrations } from "@svc/store";
import { testDatabases } from "@svc/tooling/databases";
import { closeFakeServers, serveOnLoopback } from "@svc/tooling/http-server";
import express from "express";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { useTestRunner } from "../../test/runner-fixture.js";
import { createFunctionRouter } from "./function-router.js";

// The function route in a third party's own express app: its own gate
// records the caller with setCaller, the router reads it with getCaller,
// @svc/schema/http's errorHandler answers the errors.

describe.each(testDatabases())("createFunctionRouter on $name", (database) => {
  const fixture = useTestRunner(database);
  let base = "";

  beforeAll(async () => {
    await fixture.store.migrate({ packages: [idempotencyMigrations()] });
    const app = express();
    app.use((req, _res, next) => {
      const user = req.get("x-user");
      // "admin": the entity has no policy, so only the admin writes.
      setCaller(
        req,
        user === "admin" ? adminAuth : user ? createAuthContext({ userId: user }) : anonymousAuth,
      );
      next();
    });
    app.use(createFunctionRouter(fixture.runner, { bodyLimitBytes: 1024 }));
    app.use(errorHandler<express.Request>());
    base = await serveOnLoopback(app);
  });
  afterAll(closeFakeServers);

  const call = (name: string, body: string, headers: Record<string, string> = {}) =>
    fetch(`${base}/api/fn/${name}`, {
      method: "POST",
      headers: { "x-user": "u1", "content-type": "application/json", ...headers },
      body,
    });

  it("calls the function for the recorded caller and answers its result", async () => {
    const response = await call("whoami", "{}");
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ userId: "u1" });
  });

  it.each([
    ["an unknown function", "nope", "{}", {}, 404, "FUNCTION_NOT_FOUND"],
    ["a caller without a user", "userOnly", "{}", { "x-user": "" }, 401, "AUTH_REQUIRED"],
    ["a body that is not JSON", "whoami", "{", {}, 400, "INVALID_JSON"],
    [
      "a body over the limit",
      "whoami",
      `{"a":"${"x".repeat(2000)}"}`,
      {},
      413,
      "PAYLOAD_TOO_LARGE",
    ],
    ["a malformed key", "nope", "{}", { "idempotency-key": "" }, 400, "INVALID_IDEMPOTENCY_KEY"],
  ])("answers %s with its code", async (_case, name, body, headers, status, code) => {
    const response = await call(name, body, headers);
    expect(response.status).toBe(status);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe(code);
  });

  it("runs a mutation once per Idempotency-Key and replays its answer", async () => {
    const headers = { "x-user": "admin", "idempotency-key": `create-${database.name}` };
    const first = await call("createTodo", '{"title":"milk"}', headers);
    expect(first.status).toBe(200);
    expect(first.headers.get("idempotent-replayed")).toBeNull();
    const created = await first.text();
    const again = await call("createTodo", '{"title":"milk"}', headers);
    expect(again.status).toBe(200);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(await again.text()).toBe(created);
    expect(await fixture.titles()).toEqual(["milk"]);
    const other = await call("createTodo", '{"title":"bread"}', headers);
    expect(other.status).toBe(409);
    expect(((await other.json()) as { error: { code: string } }).error.code).toBe(
      "IDEMPOTENCY_KEY_REUSED",
    );
  });
});
