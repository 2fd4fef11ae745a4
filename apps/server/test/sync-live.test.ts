import { createServer } from "node:net";
import type { ServerFrame } from "@svc/sync";
import { testDatabases } from "@svc/tooling/databases";
import { EventSource } from "eventsource";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { appServerPerTest } from "./app-server.js";
import {
  type AuthTestServer,
  insertRow,
  post,
  readJSON,
  registerPassword,
  type SignInBody,
  startAuthServer,
} from "./auth-fixtures.js";
import { ADMIN_TOKEN, tempDir } from "./fixtures.js";
import { entity, signInManifest, writeTestApp } from "./test-app.js";
import { attemptWs, connectWs, type WsClient } from "./ws-client.js";

// The composed server's live transports beyond /ws on the main port: SSE
// at /events, the spec's side ports, and live query functions.

function writeApp(dir: string): string {
  const manifest = signInManifest("sync-live-app", {
    entities: [
      entity("Task", { title: "string", assigneeId: "string" }),
      entity("Tombstone", { taskId: "string" }),
    ],
    policies: [
      {
        name: "assigned tasks",
        entity: "Task",
        allowRead: "auth.userId == data.assigneeId",
        allowInsert: "auth.userId == data.assigneeId",
      },
    ],
    rooms: [{ name: "chat", join: "auth.userId != null" }],
  });
  return writeTestApp(dir, manifest, {
    myTitles: `export default {
  type: "query",
  handler: async (ctx) => (await ctx.db.query("Task", { orderBy: { field: "title" } })).rows.map((row) => row.title),
};\n`,
    addTask: `export default {
  type: "mutation",
  handler: (ctx, args) => ctx.db.insert("Task", { title: args.title, assigneeId: ctx.auth.userId }),
};\n`,
    // A delete hook: one tombstone per deleted task (the server's second,
    // read-tracking runner must not register hooks a second time).
    tombstone: `export default {
  type: "hook",
  on: { delete: { entity: "Task" } },
  handler: async (ctx, { row }) => { await ctx.db.insert("Tombstone", { taskId: row.id }); },
};\n`,
    // Room logic: messages are stamped with the sender's user id.
    chatRoom: `export default {
  type: "room",
  room: "chat",
  onMessage: (ctx, { from, data }) => ctx.room.broadcast({ text: data.text, by: from.userId }),
};\n`,
  });
}

/** Reads an event stream with a bearer token; frames in arrival order. */
function readEvents(url: string, token: string) {
  const frames: ServerFrame[] = [];
  const waiters: (() => void)[] = [];
  const source = new EventSource(url, {
    fetch: (input, init) =>
      fetch(input, { ...init, headers: { ...init?.headers, authorization: `Bearer ${token}` } }),
  });
  source.onmessage = (message) => {
    frames.push(JSON.parse(message.data as string) as ServerFrame);
    for (const wake of waiters.splice(0)) wake();
  };
  return {
    source,
    async next(): Promise<ServerFrame> {
      while (frames.length === 0) await new Promise<void>((wake) => waiters.push(wake));
      return frames.shift() as ServerFrame;
    },
  };
}

describe.each(testDatabases())("live transports of the server on $name", (database) => {
  const app = appServerPerTest(database, { writeApp, env: { SVC_RATE_LIMIT: "off" } });
  let server: AuthTestServer;
  let alice: SignInBody;
  const closers: (() => unknown)[] = [];

  beforeEach(async () => {
    server = app.server;
    alice = await registerPassword(server, "alice@example.com");
  });

  afterEach(async () => {
    for (const close of closers.splice(0)) await close();
  });

  const addTask = (title: string, assigneeId = alice.user_id) =>
    insertRow(server, "Task", { title, assigneeId }, alice.token);

  const ws = async (url: string, token: string, path?: string): Promise<WsClient> => {
    const client = await connectWs({ url }, { token, ...(path !== undefined && { path }) });
    closers.push(() => client.close());
    return client;
  };

  it("serves SSE at /events on the main port, resumable from a cursor", async () => {
    const first = await addTask("first");
    const reader = readEvents(`${server.url}/events?entity=Task&id=tasks`, alice.token);
    closers.push(() => reader.source.close());
    const snapshot = await reader.next();
    expect(snapshot).toMatchObject({ type: "snapshot", id: "tasks", rows: [{ id: first }] });
    const second = await addTask("second");
    expect(await reader.next()).toMatchObject({ type: "change", op: "insert", rowId: second });
    // A second stream resuming from the snapshot's cursor gets the same change.
    const cursor = (snapshot as { cursor: string }).cursor;
    const resumed = readEvents(`${server.url}/events?entity=Task&since=${cursor}`, alice.token);
    closers.push(() => resumed.source.close());
    expect(await resumed.next()).toMatchObject({ type: "change", rowId: second });
  });

  it("runs a delete hook once per delete", async () => {
    const id = await addTask("doomed");
    const headers = { authorization: `Bearer ${ADMIN_TOKEN}` };
    const deleted = await fetch(`${server.url}/api/entities/Task/${id}`, {
      method: "DELETE",
      headers,
    });
    expect(deleted.status).toBe(200);
    const tombstones = (await (
      await fetch(`${server.url}/api/entities/Tombstone`, { headers })
    ).json()) as { taskId: string }[];
    expect(tombstones.map((row) => row.taskId)).toEqual([id]);
  });

  it("refuses an SSE request without a caller with a 401 envelope", async () => {
    const response = await fetch(`${server.url}/events?entity=Task`);
    expect(response.status).toBe(401);
    expect(await response.json()).toMatchObject({ error: { code: "AUTH_REQUIRED" } });
  });

  it("serves /ws and /events on their own ports too (free ones when SVC_PORT=0)", async () => {
    const { ws: wsPort, events: eventsPort, shards: shardsPort } = server.livePorts;
    expect(new Set([server.port, wsPort, eventsPort, shardsPort]).size).toBe(4);
    const client = await ws(`http://127.0.0.1:${wsPort}`, ADMIN_TOKEN);
    client.send({ type: "subscribe", id: "all", entity: "Task" });
    expect(await client.next()).toMatchObject({ type: "snapshot", rows: [] });
    const reader = readEvents(`http://127.0.0.1:${eventsPort}/events?entity=Task`, alice.token);
    closers.push(() => reader.source.close());
    expect(await reader.next()).toMatchObject({ type: "snapshot" });
    const id = await addTask("both");
    expect(await client.next()).toMatchObject({ type: "change", rowId: id });
    expect(await reader.next()).toMatchObject({ type: "change", rowId: id });
    const other = await fetch(`http://127.0.0.1:${eventsPort}/api/entities/Task`);
    expect(other.status).toBe(404);
    expect(await other.json()).toMatchObject({ error: { code: "ROUTE_NOT_FOUND" } });
  });

  it("serves shards on the main port and SVC_PORT + 3, with the app's room logic", async () => {
    const bob = await registerPassword(server, "bob@example.com");
    const onMain = await ws(`${server.url}`, alice.token, "/shard/chat/general");
    expect(await onMain.next()).toMatchObject({ type: "welcome" });
    const onSide = await ws(
      `http://127.0.0.1:${server.livePorts.shards}`,
      bob.token,
      "/shard/chat/general",
    );
    expect(await onSide.next()).toMatchObject({ type: "welcome", members: [{}, {}] });
    expect(await onMain.next()).toMatchObject({ type: "join" });
    onSide.send({ type: "message", data: { text: "hi" } });
    expect(await onMain.next()).toMatchObject({
      type: "message",
      data: { text: "hi", by: bob.user_id },
    });
    // Unknown kinds and paths no transport serves are refused.
    for (const path of ["/shard/nope", "/elsewhere"]) {
      const refused = await attemptWs(server, { token: alice.token, path });
      expect(refused).toEqual({ status: 404 });
    }
  });

  it("runs a live query function and sends its value again when it changes", async () => {
    const client = await ws(server.url, alice.token);
    client.send({ type: "subscribe", id: "titles", query: "myTitles" });
    expect(await client.next()).toMatchObject({ type: "result", id: "titles", value: [] });
    const answer = await readJSON(
      post(server, "/api/fn/addTask", { title: "through a mutation" }, { token: alice.token }),
    );
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect(await client.next()).toMatchObject({
      type: "result",
      value: ["through a mutation"],
    });
    client.send({ type: "subscribe", id: "m", query: "addTask", args: { title: "x" } });
    expect(await client.next()).toMatchObject({
      type: "error",
      id: "m",
      error: { code: "NOT_A_QUERY" },
    });
    client.send({ type: "subscribe", id: "n", query: "nope" });
    expect(await client.next()).toMatchObject({ error: { code: "FUNCTION_NOT_FOUND" } });
  });
});

describe("live transport ports", () => {
  it("stops the boot with SVC_PORT when SVC_PORT + 1 is taken", async () => {
    // A free main port whose next port is held by someone else: retried
    // until the port below the blocker is free too.
    const listenOn = (port: number) =>
      new Promise<ReturnType<typeof createServer> | null>((resolve) => {
        const server = createServer();
        server.once("error", () => resolve(null));
        server.listen(port, "127.0.0.1", () => resolve(server));
      });
    let blocker = await listenOn(0);
    let taken = 0;
    for (let attempt = 0; blocker !== null && attempt < 20; attempt += 1) {
      taken = (blocker.address() as { port: number }).port;
      const probe = taken > 1024 ? await listenOn(taken - 1) : null;
      if (probe !== null) {
        await new Promise((resolve) => probe.close(resolve));
        break;
      }
      await new Promise((resolve) => blocker?.close(resolve));
      blocker = await listenOn(0);
    }
    if (blocker === null) throw new Error("no free port pair found");
    using dir = tempDir();
    await expect(
      startAuthServer({
        SVC_MANIFEST: writeApp(dir.path),
        SVC_PORT: String(taken - 1),
        SVC_DB_PATH: ":memory:",
      }),
    ).rejects.toMatchObject({ name: "ConfigError", message: expect.stringContaining("SVC_PORT") });
    await new Promise((resolve) => blocker?.close(resolve));
  });
});
