import { testDatabases } from "@svc/tooling/databases";
import { describe, expect, it } from "vitest";
import { createClient, type SvcClient, SvcError } from "../src/index.js";
import { manualTimers, recordingWebSocket, statusLog, titles } from "./live-fixture.js";
import { emailSequence, signedInClient } from "./server.js";
import { serverForTests } from "./server-for-tests.js";
import { waitFor } from "./wait-for.js";

// client.subscribe and client.live over the real server's WebSocket at /ws,
// on every database.

type Todo = { id: string; title: string; done: boolean; ownerId: string };

describe.each(testDatabases())("live over WebSocket ($name)", (database) => {
  const server = serverForTests({ database });
  const nextEmail = emailSequence(`live-ws-${database.name}`);

  /** A signed-in client whose live layer records its socket and is driven by manual timers. */
  async function liveClient() {
    const { client: signedIn, userId } = await signedInClient(server(), nextEmail());
    const recorder = recordingWebSocket();
    const clock = manualTimers();
    const log = statusLog();
    const client = createClient({
      url: server().url,
      token: (await signedIn.token()) ?? "",
      live: { WebSocket: recorder.WebSocket, timers: clock.timers, onStatus: log.onStatus },
    });
    return { client, userId, recorder, clock, log };
  }

  const addTodo = async (client: SvcClient, title: string, done = false): Promise<string> => {
    const row = await client.entities("Todo").insert({ title, done, priority: "low" });
    return row.id as string;
  };

  it("answers the snapshot, then keeps the rows live (insert appended, update in place, delete)", async () => {
    const { client } = await liveClient();
    const b = await addTodo(client, "b");
    await addTodo(client, "a");
    const seen: (readonly Todo[])[] = [];
    const todos = client.subscribe("Todo", { orderBy: "title" }, (rows) =>
      seen.push(rows as readonly Todo[]),
    );
    expect(titles(await todos.ready)).toEqual(["a", "b"]);
    expect(titles(todos.rows)).toEqual(["a", "b"]);

    const c = await addTodo(client, "0-first-by-title");
    await waitFor(() => expect(todos.rows).toHaveLength(3));
    // Inserts are appended, whatever the order of the snapshot.
    expect(titles(todos.rows)).toEqual(["a", "b", "0-first-by-title"]);
    await client.entities("Todo").update(b, { title: "b2" });
    await waitFor(() => expect(titles(todos.rows)).toEqual(["a", "b2", "0-first-by-title"]));
    await client.entities("Todo").delete(c);
    await waitFor(() => expect(titles(todos.rows)).toEqual(["a", "b2"]));
    expect(seen.map(titles)).toEqual([
      ["a", "b"],
      ["a", "b", "0-first-by-title"],
      ["a", "b2", "0-first-by-title"],
      ["a", "b2"],
    ]);
    todos.unsubscribe();
  });

  it("each user sees only the rows their read policy admits", async () => {
    const alice = await liveClient();
    const bob = await liveClient();
    const aliceRows = alice.client.subscribe("Todo", {}, () => undefined);
    const bobRows = bob.client.subscribe("Todo", {}, () => undefined);
    await Promise.all([aliceRows.ready, bobRows.ready]);
    await addTodo(alice.client, "alice's");
    await addTodo(bob.client, "bob's");
    await waitFor(() => expect(titles(bobRows.rows)).toEqual(["bob's"]));
    await waitFor(() => expect(titles(aliceRows.rows)).toEqual(["alice's"]));
    // Changes reach a subscriber in log order: alice's insert came first and was filtered out.
    expect(bob.recorder.received.filter((frame) => frame.type === "change")).toHaveLength(1);
    aliceRows.unsubscribe();
    bobRows.unsubscribe();
  });

  it("drops a row with `remove` when it leaves the view, and takes it back on an update", async () => {
    const { client, recorder } = await liveClient();
    const id = await addTodo(client, "open");
    const open = client.subscribe("Todo", { where: { done: false } }, () => undefined);
    expect(titles(await open.ready)).toEqual(["open"]);
    await client.entities("Todo").update(id, { done: true });
    await waitFor(() => expect(open.rows).toEqual([]));
    expect(recorder.received).toContainEqual(expect.objectContaining({ op: "remove", rowId: id }));
    // Back into view: an update carrying the row, appended as an upsert.
    await client.entities("Todo").update(id, { done: false });
    await waitFor(() => expect(titles(open.rows)).toEqual(["open"]));
    expect(recorder.received.at(-1)).toMatchObject({ op: "update", rowId: id });
    open.unsubscribe();
  });

  it("shares one socket between subscriptions and closes it with the last one", async () => {
    const { client, recorder, log } = await liveClient();
    const first = client.subscribe("Todo", {}, () => undefined);
    const second = client.subscribe("Todo", { where: { done: true } }, () => undefined);
    await Promise.all([first.ready, second.ready]);
    expect(recorder.sockets).toHaveLength(1);
    first.unsubscribe();
    expect(recorder.sent.at(-1)).toEqual({ type: "unsubscribe", id: expect.any(String) });
    expect(recorder.sockets[0]?.readyState).toBe(1);
    second.unsubscribe();
    expect(recorder.sockets[0]?.readyState).toBeGreaterThanOrEqual(2);
    expect(log.states().at(-1)).toBe("websocket:closed");
  });

  it("resumes after a dropped socket from the last cursor: no gap, no duplicate", async () => {
    const { client, recorder, clock, log } = await liveClient();
    const kept = await addTodo(client, "kept");
    const todos = client.subscribe("Todo", {}, () => undefined);
    await todos.ready;
    const before = await addTodo(client, "before");
    await waitFor(() => expect(todos.rows).toHaveLength(2));
    const lastCursor = recorder.received.at(-1)?.cursor;

    recorder.sockets[0]?.close();
    await waitFor(() => expect(clock.pending()).toBe(1));
    expect(log.states()).toContain("websocket:reconnecting");
    // Written while no socket is open: only the resume can deliver them.
    const during = await addTodo(client, "during");
    await client.entities("Todo").update(kept, { title: "kept2" });
    await client.entities("Todo").delete(before);

    clock.fire();
    await waitFor(() => expect(titles(todos.rows)).toEqual(["kept2", "during"]));
    expect(recorder.sockets).toHaveLength(2);
    const resume = recorder.sent.filter((frame) => frame.type === "subscribe").at(-1);
    expect(resume).toMatchObject({ entity: "Todo", since: lastCursor });
    const changes = recorder.received.filter((frame) => frame.type === "change");
    const cursors = changes.map((frame) => Number(frame.cursor));
    expect(cursors).toEqual([...cursors].sort((x, y) => x - y));
    expect(new Set(cursors).size).toBe(cursors.length);
    expect(changes.map((frame) => [frame.op, frame.rowId])).toEqual([
      ["insert", before],
      ["insert", during],
      ["update", kept],
      ["delete", before],
    ]);
    todos.unsubscribe();
  });

  it("reloads the snapshot on RESYNC_REQUIRED, live and on resume", async () => {
    const { client, recorder, clock } = await liveClient();
    await addTodo(client, "old");
    const seen: unknown[][] = [];
    const todos = client.subscribe("Todo", {}, (rows) => seen.push(titles(rows)));
    await todos.ready;
    // The log is reset under an open subscription: the server answers RESYNC_REQUIRED.
    await server().store.truncateAll();
    await waitFor(() => expect(seen.at(-1)).toEqual([]));
    expect(recorder.received).toContainEqual(
      expect.objectContaining({
        type: "error",
        error: expect.objectContaining({ code: "RESYNC_REQUIRED" }),
      }),
    );
    await addTodo(client, "after reset");
    await waitFor(() => expect(titles(todos.rows)).toEqual(["after reset"]));

    // Reset while disconnected: the resume's `since` is void, a new snapshot replaces the rows.
    recorder.sockets[0]?.close();
    await waitFor(() => expect(clock.pending()).toBe(1));
    await server().store.truncateAll();
    await addTodo(client, "fresh");
    const callsBefore = seen.length;
    clock.fire();
    await waitFor(() => expect(titles(todos.rows)).toEqual(["fresh"]));
    // Replaced in one step: no empty list in between. (On Postgres the
    // server's tail may read the reset marker after the resumed socket got
    // its snapshot; the RESYNC_REQUIRED that follows reloads the same rows,
    // so "fresh" may be reported twice, but never anything else.)
    expect(seen.slice(callsBefore).length).toBeGreaterThan(0);
    for (const rows of seen.slice(callsBefore)) expect(rows).toEqual(["fresh"]);
    todos.unsubscribe();
  });

  it("starts over from a new snapshot when the identity changes; no earlier rows linger", async () => {
    const { client, recorder, log } = await liveClient();
    await addTodo(client, "first user's");
    const errors: SvcError[] = [];
    const seen: unknown[][] = [];
    const todos = client.subscribe("Todo", { onError: (error) => errors.push(error) }, (rows) =>
      seen.push(titles(rows)),
    );
    await todos.ready;
    const { client: other } = await signedInClient(server(), nextEmail());
    await addTodo(other, "second user's");

    await client.setToken(await other.token());
    await waitFor(() => expect(seen.at(-1)).toEqual(["second user's"]));
    expect(seen).toEqual([["first user's"], [], ["second user's"]]);
    expect(recorder.sockets).toHaveLength(2);

    // Signed out: the rows go, the server refuses the socket (1008) and nothing loops.
    await client.setToken(null);
    await waitFor(() => expect(errors.map((error) => error.code)).toEqual(["AUTH_REQUIRED"]));
    expect(seen.at(-1)).toEqual([]);
    expect(log.states().at(-1)).toBe("websocket:unauthorized");
    expect(recorder.sockets).toHaveLength(3);
    todos.unsubscribe();
  });

  it("refuses an anonymous caller once (1008): onError, ready rejects, no retry", async () => {
    const recorder = recordingWebSocket();
    const clock = manualTimers();
    const client = createClient({
      url: server().url,
      live: { WebSocket: recorder.WebSocket, timers: clock.timers },
    });
    const errors: string[] = [];
    const todos = client.subscribe(
      "Todo",
      { onError: (error) => errors.push(error.code) },
      () => undefined,
    );
    await expect(todos.ready).rejects.toMatchObject({ code: "AUTH_REQUIRED" });
    expect(errors).toEqual(["AUTH_REQUIRED"]);
    expect(clock.pending()).toBe(0);
    expect(recorder.sockets).toHaveLength(1);
    todos.unsubscribe();
  });

  it("reports a subscription's own error and ends it", async () => {
    const { client } = await liveClient();
    const errors: SvcError[] = [];
    const nope = client.subscribe(
      "Nope",
      { onError: (error) => errors.push(error) },
      () => undefined,
    );
    await expect(nope.ready).rejects.toBeInstanceOf(SvcError);
    expect(errors.map((error) => error.code)).toEqual(["ENTITY_NOT_FOUND"]);
  });

  it("live query functions answer again after a mutation through client.fn", async () => {
    const { client } = await liveClient();
    const values: unknown[] = [];
    const page = client.live("listTodos", {}, (value) => values.push(value));
    expect(await page.ready).toMatchObject({ rows: [] });
    await client.fn("createTodo", { title: "Milk" });
    await waitFor(() => expect(values).toHaveLength(2));
    expect(page.value).toMatchObject({ rows: [expect.objectContaining({ title: "Milk" })] });
    const failing = client.live("createTodo", { title: "x" }, { onValue: () => undefined });
    await expect(failing.ready).rejects.toMatchObject({ code: "NOT_A_QUERY" });
    page.unsubscribe();
  });
});

describe("live over WebSocket, dev reset", () => {
  // The default test server is dev mode on in-memory SQLite: it has the
  // dev reset route, which empties every entity (and the sessions).
  const server = serverForTests();

  it("POST /api/__test__/reset answers RESYNC_REQUIRED, and the rows are reloaded (empty)", async () => {
    const { client } = await signedInClient(server(), "reset-1@example.com");
    const recorder = recordingWebSocket();
    const live = createClient({
      url: server().url,
      token: (await client.token()) ?? "",
      live: { WebSocket: recorder.WebSocket },
    });
    await client.fn("createTodo", { title: "before reset" });
    const todos = live.subscribe("Todo", {}, () => undefined);
    expect(titles(await todos.ready)).toEqual(["before reset"]);
    const response = await fetch(`${server().url}/api/__test__/reset`, { method: "POST" });
    expect(response.status).toBe(200);
    await waitFor(() => expect(todos.rows).toEqual([]));
    const subscribes = recorder.sent.filter((frame) => frame.type === "subscribe");
    expect(subscribes).toHaveLength(2);
    expect(subscribes[1]).not.toHaveProperty("since");
    todos.unsubscribe();
  });
});
