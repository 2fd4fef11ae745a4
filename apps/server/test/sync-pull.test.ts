import { testDatabases } from "@svc/tooling/databases";
import { beforeEach, describe, expect, it } from "vitest";
import { appServerPerTest } from "./app-server.js";
import { writeAssignedTasksApp } from "./assigned-tasks-app.js";
import {
  type AuthTestServer,
  errorOf,
  post,
  readJSON,
  registerPassword,
  request,
  type SignInBody,
} from "./auth-fixtures.js";
import { adminRequest, startLoopbackServer, tempDir } from "./fixtures.js";

// GET /api/sync/pull through the composed server, on every database: the
// change log is the store's bus, written in each write's transaction; each
// caller pulls only what its read policy admits.

interface Pulled {
  changes: { cursor: string; entity: string; op: string; rowId: string; row?: { title: string } }[];
  cursor: string;
  has_more: boolean;
}

function writeApp(dir: string): string {
  return writeAssignedTasksApp(dir, "sync-app", {
    addTask: `export default { type: "mutation", handler: (ctx, args) => ctx.db.insert("Task", { title: args.title, assigneeId: ctx.auth.userId }) };\n`,
    addThenFail: `export default { type: "mutation", handler: async (ctx, args) => { await ctx.db.insert("Task", { title: args.title, assigneeId: ctx.auth.userId }); throw new Error("after the write"); } };\n`,
  });
}

function pull(server: { url: string }, query: string, token?: string) {
  return request(server, "GET", `/api/sync/pull${query}`, token === undefined ? {} : { token });
}

async function pullOK(server: { url: string }, query: string, token?: string): Promise<Pulled> {
  const answer = await readJSON<Pulled>(pull(server, query, token));
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  return answer.body;
}

describe.each(testDatabases())("sync pull through the server on $name", (database) => {
  const app = appServerPerTest(database, { writeApp, env: { SVC_RATE_LIMIT: "off" } });
  let server: AuthTestServer;
  let alice: SignInBody;
  let bob: SignInBody;

  beforeEach(async () => {
    server = app.server;
    alice = await registerPassword(server, "alice@example.com");
    bob = await registerPassword(server, "bob@example.com");
  });

  const addTask = async (user: SignInBody, title: string, via: "entities" | "fn") => {
    const path = via === "fn" ? "/api/fn/addTask" : "/api/entities/Task";
    const body = via === "fn" ? { title } : { title, assigneeId: user.user_id };
    const answer = await readJSON<{ id: string }>(post(server, path, body, { token: user.token }));
    expect(answer.status, JSON.stringify(answer.body)).toBeLessThan(300);
    return answer.body.id;
  };

  it("gives each user only their own changes, and `remove` when a task is reassigned", async () => {
    const { cursor: since } = await pullOK(server, "", alice.token);
    const a1 = await addTask(alice, "a1", "entities");
    const b1 = await addTask(bob, "b1", "fn");
    const a2 = await addTask(alice, "a2", "fn");
    const patched = await readJSON(
      request(server, "PATCH", `/api/entities/Task/${a2}`, {
        token: alice.token,
        body: { assigneeId: bob.user_id },
      }),
    );
    expect(patched.status).toBe(200);
    const forAlice = await pullOK(server, `?since=${since}`, alice.token);
    const forBob = await pullOK(server, `?since=${since}`, bob.token);
    expect(forAlice.changes.map(({ op, rowId }) => [op, rowId])).toEqual([
      ["insert", a1],
      ["insert", a2],
      ["remove", a2],
    ]);
    expect(forBob.changes.map(({ op, rowId, row }) => [op, rowId, row?.title])).toEqual([
      ["insert", b1, "b1"],
      ["update", a2, "a2"],
    ]);
    expect(forAlice.cursor).toBe(forBob.cursor);
    // Anonymous callers get what anonymous may read: nothing here.
    expect((await pullOK(server, `?since=${since}`)).changes).toEqual([]);
  });

  it("never logs a write whose function threw", async () => {
    const { cursor: since } = await pullOK(server, "", alice.token);
    const failed = await readJSON(
      post(server, "/api/fn/addThenFail", { title: "gone" }, { token: alice.token }),
    );
    expect(failed.status).toBe(500);
    const kept = await addTask(alice, "kept", "fn");
    const pulled = await readJSON<Pulled>(
      adminRequest(server, "GET", `/api/sync/pull?since=${since}`),
    );
    expect(pulled.body.changes.map((change) => [change.op, change.rowId])).toEqual([
      ["insert", kept],
    ]);
    expect(server.internalErrors).toHaveLength(1);
  });

  it("pages with limit and has_more, with no gap and no duplicate", async () => {
    const { cursor: since } = await pullOK(server, "", alice.token);
    const mine: string[] = [];
    for (let i = 0; i < 5; i += 1) {
      mine.push(await addTask(alice, `a${i}`, i % 2 === 0 ? "fn" : "entities"));
      await addTask(bob, `b${i}`, "fn");
    }
    const seen: string[] = [];
    let cursor = since;
    let pages = 0;
    for (let more = true; more; pages += 1) {
      const page = await pullOK(server, `?since=${cursor}&limit=3`, alice.token);
      seen.push(...page.changes.map((change) => change.rowId));
      cursor = page.cursor;
      more = page.has_more;
    }
    expect(seen).toEqual(mine);
    expect(pages).toBe(4);
    expect(await pullOK(server, `?since=${cursor}`, alice.token)).toEqual({
      changes: [],
      cursor,
      has_more: false,
    });
  });

  it("answers 400 for a malformed query and 410 for a future cursor or one from before a reset", async () => {
    expect(await errorOf(pull(server, "?since=abc", alice.token))).toMatchObject({
      status: 400,
      code: "INVALID_QUERY",
    });
    expect(await errorOf(pull(server, "?since=0&limit=1001", alice.token))).toMatchObject({
      status: 400,
      code: "INVALID_QUERY",
    });
    await addTask(alice, "a", "fn");
    const { cursor } = await pullOK(server, "", alice.token);
    expect(await errorOf(pull(server, `?since=${Number(cursor) + 1}`, alice.token))).toMatchObject({
      status: 410,
      code: "RESYNC_REQUIRED",
    });
    // What `/api/__test__/reset` runs (that route exists only in dev mode in memory; see below).
    await server.store.truncateAll();
    expect(await errorOf(pull(server, `?since=${cursor}`, alice.token))).toMatchObject({
      status: 410,
      code: "RESYNC_REQUIRED",
    });
    const fresh = await pullOK(server, "", alice.token);
    expect(Number(fresh.cursor)).toBeGreaterThan(Number(cursor));
  });
});

describe("sync pull and the dev reset route", () => {
  it("answers 410 for a cursor from before POST /api/__test__/reset", async () => {
    using dir = tempDir();
    await using server = await startLoopbackServer({
      SVC_DEV_MODE: "true",
      SVC_MANIFEST: writeApp(dir.path),
      SVC_DB_PATH: ":memory:",
    });
    const alice = await registerPassword(server, "alice@example.com");
    const { cursor: since } = await pullOK(server, "", alice.token);
    await post(server, "/api/fn/addTask", { title: "a" }, { token: alice.token });
    const before = await pullOK(server, `?since=${since}`, alice.token);
    expect(before.changes).toHaveLength(1);
    const reset = await readJSON(post(server, "/api/__test__/reset"));
    expect(reset.body).toEqual({ reset: true });
    expect(await errorOf(pull(server, `?since=${before.cursor}`))).toMatchObject({
      status: 410,
      code: "RESYNC_REQUIRED",
    });
  });
});
