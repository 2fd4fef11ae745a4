import { afterAll, beforeAll, expect, it } from "vitest";
import { ADMIN_TOKEN, type EdgeWorker, startEdgeWorker, TODO_MANIFEST } from "./edge-worker.js";

// The todo example, unchanged, as an edge Worker: its functions (a mutation
// that checks a reference, a toggle, a paged query, an action that runs a
// query) answer what they answer on the server.

let worker: EdgeWorker;
beforeAll(async () => {
  worker = await startEdgeWorker(TODO_MANIFEST);
});
afterAll(async () => {
  await worker?.[Symbol.asyncDispose]();
});

it("runs the todo example's functions under its policies", async () => {
  const { token } = (
    await worker.call("POST", "/api/auth/password/register", {
      body: { email: "dana@example.com", password: "a long enough password" },
    })
  ).body as { token: string };
  // List has no policy: only the admin token may write it, as on the server.
  const denied = await worker.call("POST", "/api/fn/createList", { token, body: { title: "x" } });
  expect(denied.status).toBe(403);
  expect(denied.body.error.code).toBe("POLICY_DENIED");
  const list = await worker.call("POST", "/api/fn/createList", {
    token: ADMIN_TOKEN,
    body: { title: "Home" },
  });
  expect(list.status).toBe(200);
  const listId = list.body.id as string;
  // Reading a List needs the admin token too: a user's todo cannot name one.
  const inList = await worker.call("POST", "/api/fn/createTodo", {
    token,
    body: { title: "x", listId },
  });
  expect(inList.status).toBe(403);
  const ids: string[] = [];
  for (const title of ["milk", "bread", "eggs"]) {
    const todo = await worker.call("POST", "/api/fn/createTodo", {
      token,
      body: { title, priority: "high" },
    });
    expect(todo.status).toBe(200);
    ids.push(todo.body.id as string);
  }
  expect(
    (await worker.call("POST", "/api/fn/toggleTodo", { token, body: { id: ids[0] } })).body,
  ).toEqual({ id: ids[0], done: true });
  const page = await worker.call("POST", "/api/fn/listTodos", { token, body: { limit: 2 } });
  expect(page.body.rows).toHaveLength(2);
  expect(page.body.nextCursor).toEqual(expect.any(String));
  const rest = await worker.call("POST", "/api/fn/listTodos", {
    token,
    body: { limit: 2, cursor: page.body.nextCursor },
  });
  expect(rest.body.rows).toHaveLength(1);
  expect((await worker.call("POST", "/api/fn/summary", { token, body: {} })).body).toEqual({
    open: 2,
    done: 1,
  });
});
