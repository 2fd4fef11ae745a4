import type { SnapshotFrame } from "@svc/sync";
import { testDatabases } from "@svc/tooling/databases";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { appServerPerTest } from "./app-server.js";
import { writeAssignedTasksApp } from "./assigned-tasks-app.js";
import {
  type AuthTestServer,
  insertRow,
  readJSON,
  registerPassword,
  request,
  type SignInBody,
  TRUSTED_ORIGIN,
} from "./auth-fixtures.js";
import { attemptWs, connectWs, nextOf, type WsClient } from "./ws-client.js";

// The WebSocket transport at /ws on the main port, on every database: a
// snapshot read as the caller, then the changes its read policy admits.

function writeApp(dir: string): string {
  return writeAssignedTasksApp(dir, "sync-ws-app");
}

async function subscribe(
  client: WsClient,
  id: string,
  extra: Record<string, unknown> = {},
): Promise<SnapshotFrame> {
  client.send({ type: "subscribe", id, entity: "Task", ...extra });
  const snapshot = await nextOf(client, "snapshot");
  expect(snapshot.id).toBe(id);
  return snapshot;
}

/** Round-trips a ping: every frame the server sent before it has arrived. */
async function expectPong(client: WsClient): Promise<void> {
  client.send({ type: "ping" });
  expect(await client.next()).toEqual({ type: "pong" });
}

describe.each(testDatabases())("sync over WebSocket on $name", (database) => {
  const app = appServerPerTest(database, { writeApp, env: { SVC_RATE_LIMIT: "off" } });
  let server: AuthTestServer;
  let alice: SignInBody;
  let bob: SignInBody;
  const clients: WsClient[] = [];

  const open = async (token: string, options: Parameters<typeof connectWs>[1] = {}) => {
    const client = await connectWs(server, { token, ...options });
    clients.push(client);
    return client;
  };

  beforeEach(async () => {
    server = app.server;
    alice = await registerPassword(server, "alice@example.com");
    bob = await registerPassword(server, "bob@example.com");
  });

  afterEach(async () => {
    await Promise.all(clients.splice(0).map((client) => client.close()));
  });

  const addTask = (user: SignInBody, title: string): Promise<string> =>
    insertRow(server, "Task", { title, assigneeId: user.user_id }, user.token);

  const patchTask = async (user: SignInBody, id: string, patch: Record<string, unknown>) => {
    const answer = await readJSON(
      request(server, "PATCH", `/api/entities/Task/${id}`, { token: user.token, body: patch }),
    );
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  };

  it("sends a snapshot, then live changes after its cursor", async () => {
    const a0 = await addTask(alice, "a0");
    const client = await open(alice.token);
    const snapshot = await subscribe(client, "mine");
    expect(snapshot.rows.map((row) => row.id)).toEqual([a0]);
    const a1 = await addTask(alice, "a1");
    const change = await nextOf(client, "change");
    expect(change).toMatchObject({ id: "mine", op: "insert", rowId: a1, row: { title: "a1" } });
    expect(Number(change.cursor)).toBeGreaterThan(Number(snapshot.cursor));
    const deleted = await readJSON(
      request(server, "DELETE", `/api/entities/Task/${a0}`, { token: alice.token }),
    );
    expect(deleted.status).toBeLessThan(300);
    expect(await nextOf(client, "change")).toMatchObject({ op: "delete", rowId: a0 });
  });

  it("filters per subscriber, and sends `remove` when a row leaves the view", async () => {
    const forAlice = await open(alice.token);
    const forBob = await open(bob.token);
    await subscribe(forAlice, "a");
    await subscribe(forBob, "b");
    const a1 = await addTask(alice, "a1");
    const b1 = await addTask(bob, "b1");
    expect(await nextOf(forAlice, "change")).toMatchObject({ op: "insert", rowId: a1 });
    expect(await nextOf(forBob, "change")).toMatchObject({ op: "insert", rowId: b1 });
    await patchTask(alice, a1, { assigneeId: bob.user_id });
    const removed = await nextOf(forAlice, "change");
    expect(removed).toEqual({
      type: "change",
      id: "a",
      op: "remove",
      rowId: a1,
      cursor: removed.cursor,
    });
    expect(await nextOf(forBob, "change")).toMatchObject({
      op: "update",
      rowId: a1,
      row: { title: "a1", assigneeId: bob.user_id },
    });
    // Nothing else reached either socket (b1 never went to Alice).
    await expectPong(forAlice);
    await expectPong(forBob);
  });

  it("applies the subscription's where: a row that stops matching is removed", async () => {
    const client = await open(alice.token);
    const keep = await addTask(alice, "keep");
    await addTask(alice, "other");
    const snapshot = await subscribe(client, "kept", { where: { title: "keep" } });
    expect(snapshot.rows.map((row) => row.id)).toEqual([keep]);
    await addTask(alice, "skipped");
    const again = await addTask(alice, "keep");
    expect(await nextOf(client, "change")).toMatchObject({ op: "insert", rowId: again });
    await patchTask(alice, keep, { title: "renamed" });
    expect(await nextOf(client, "change")).toMatchObject({ op: "remove", rowId: keep });
    await expectPong(client);
  });

  it("stops a subscription's changes on unsubscribe", async () => {
    const client = await open(alice.token);
    await subscribe(client, "first");
    await subscribe(client, "second");
    client.send({ type: "unsubscribe", id: "first" });
    await expectPong(client);
    const a1 = await addTask(alice, "a1");
    expect(await nextOf(client, "change")).toMatchObject({ id: "second", rowId: a1 });
    await expectPong(client);
  });

  it("answers ping with pong", async () => {
    const client = await open(alice.token);
    await expectPong(client);
  });

  it("accepts a bearer.<token> subprotocol and the session cookie", async () => {
    const viaProtocol = await connectWs(server, { protocols: ["svc.v1", `bearer.${alice.token}`] });
    clients.push(viaProtocol);
    expect(viaProtocol.socket.protocol).toBe("svc.v1");
    await subscribe(viaProtocol, "p");
    const onlyBearer = await connectWs(server, { protocols: [`bearer.${alice.token}`] });
    clients.push(onlyBearer);
    expect(onlyBearer.socket.protocol).toBe(`bearer.${alice.token}`);
    await expectPong(onlyBearer);
    const viaCookie = await connectWs(server, { headers: { cookie: `svc_session=${bob.token}` } });
    clients.push(viaCookie);
    await subscribe(viaCookie, "c");
    const b1 = await addTask(bob, "b1");
    expect(await nextOf(viaCookie, "change")).toMatchObject({ rowId: b1 });
  });

  it.each([
    ["no credentials", {}, "authentication required"],
    ["an unknown session token", { token: "svc_unknown" }, "INVALID_TOKEN"],
    ["a bad subprotocol token", { protocols: ["bearer.svc_unknown"] }, "INVALID_TOKEN"],
    ["a malformed Authorization header", { headers: { authorization: "Basic x" } }, undefined],
  ])("closes the socket with 1008 for %s", async (_label, options, reason) => {
    const client = await connectWs(server, options);
    const closed = await client.closed;
    expect(closed.code).toBe(1008);
    if (reason !== undefined) expect(closed.reason).toBe(reason);
  });

  it("refuses an untrusted Origin with 403 and another path with 404", async () => {
    expect(
      await attemptWs(server, { token: alice.token, headers: { origin: "https://evil.example" } }),
    ).toEqual({ status: 403 });
    expect(await attemptWs(server, { token: alice.token, path: "/other" })).toEqual({
      status: 404,
    });
    const trusted = await open(alice.token, { headers: { origin: TRUSTED_ORIGIN } });
    await expectPong(trusted);
    const own = await open(alice.token, {
      headers: { origin: server.url },
    });
    await expectPong(own);
  });

  it("answers bad frames with error frames and keeps the connection", async () => {
    const client = await open(alice.token);
    client.send({ type: "nope" });
    expect(await nextOf(client, "error")).toMatchObject({ error: { code: "INVALID_FRAME" } });
    client.send({ type: "subscribe", id: "x" });
    expect(await nextOf(client, "error")).toMatchObject({
      id: "x",
      error: { code: "INVALID_FRAME" },
    });
    client.send({ type: "subscribe", id: "y", entity: "Nope" });
    expect(await nextOf(client, "error")).toMatchObject({
      id: "y",
      error: { code: "ENTITY_NOT_FOUND" },
    });
    client.send({ type: "subscribe", id: "z", entity: "Task", where: { missing: 1 } });
    expect(await nextOf(client, "error")).toMatchObject({
      id: "z",
      error: { code: "INVALID_QUERY" },
    });
    await subscribe(client, "dup");
    client.send({ type: "subscribe", id: "dup", entity: "Task" });
    expect(await nextOf(client, "error")).toMatchObject({
      id: "dup",
      error: { code: "SUBSCRIPTION_EXISTS" },
    });
    await expectPong(client);
  });

  it("closes with 1007 on text that is not JSON and 1009 on a frame over 64 KiB", async () => {
    const notJSON = await open(alice.token);
    notJSON.send("{not json");
    expect((await notJSON.closed).code).toBe(1007);
    const big = await open(alice.token);
    big.send({ type: "ping", pad: "x".repeat(65 * 1024) });
    expect((await big.closed).code).toBe(1009);
  });

  it("sends RESYNC_REQUIRED to every subscription on a log reset", async () => {
    const client = await open(alice.token);
    await subscribe(client, "one");
    await subscribe(client, "two");
    await server.store.truncateAll();
    const errors = [await nextOf(client, "error"), await nextOf(client, "error")];
    expect(errors.map((frame) => [frame.id, frame.error.code]).sort()).toEqual([
      ["one", "RESYNC_REQUIRED"],
      ["two", "RESYNC_REQUIRED"],
    ]);
    // The subscriptions are gone: a later write reaches nobody.
    await addTask(alice, "after");
    await expectPong(client);
  });

  it("closes every socket with 1001 when the server closes", async () => {
    const client = await open(alice.token);
    await subscribe(client, "s");
    await app.closeServer();
    expect((await client.closed).code).toBe(1001);
  });
});
