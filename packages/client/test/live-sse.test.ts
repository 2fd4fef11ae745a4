import { testDatabases } from "@svc/tooling/databases";
import { describe, expect, it } from "vitest";
import { createClient, type SvcClient } from "../src/index.js";
import {
  blockedWebSocket,
  droppableFetch,
  manualTimers,
  recordingWebSocket,
  statusLog,
  titles,
} from "./live-fixture.js";
import { emailSequence, signedInClient } from "./server.js";
import { serverForTests } from "./server-for-tests.js";
import { waitFor } from "./wait-for.js";

// Entity subscriptions over the real server's SSE endpoint (GET /events),
// read through fetch, on every database.

describe.each(testDatabases())("live over SSE ($name)", (database) => {
  const server = serverForTests({ database });
  const nextEmail = emailSequence(`live-sse-${database.name}`);

  async function sseClient() {
    const { client: signedIn } = await signedInClient(server(), nextEmail());
    const fetcher = droppableFetch();
    const clock = manualTimers();
    const log = statusLog();
    const recorder = recordingWebSocket();
    const client = createClient({
      url: server().url,
      token: (await signedIn.token()) ?? "",
      fetch: fetcher.fetch,
      live: {
        transport: "sse",
        WebSocket: recorder.WebSocket,
        timers: clock.timers,
        onStatus: log.onStatus,
      },
    });
    return { client, fetcher, clock, log, recorder };
  }

  const addTodo = async (client: SvcClient, title: string, done = false): Promise<string> =>
    (await client.entities("Todo").insert({ title, done, priority: "low" })).id as string;

  it("answers the snapshot and live changes, filtered by where (remove included)", async () => {
    const { client, fetcher, recorder } = await sseClient();
    const id = await addTodo(client, "b");
    await addTodo(client, "a", true);
    const open = client.subscribe(
      "Todo",
      { where: { done: false }, orderBy: "-title", limit: 50 },
      () => undefined,
    );
    expect(titles(await open.ready)).toEqual(["b"]);
    const query = new URL(fetcher.requests[0]?.url ?? "").searchParams;
    expect(Object.fromEntries(query)).toEqual({
      entity: "Todo",
      where: '{"done":false}',
      order: "-title",
      limit: "50",
    });
    expect(fetcher.requests[0]?.headers.get("authorization")).toMatch(/^Bearer svc_/);
    await addTodo(client, "c");
    await waitFor(() => expect(titles(open.rows)).toEqual(["b", "c"]));
    await client.entities("Todo").update(id, { done: true });
    await waitFor(() => expect(titles(open.rows)).toEqual(["c"]));
    expect(recorder.sockets).toHaveLength(0);
    open.unsubscribe();
  });

  it("resumes a dropped stream with Last-Event-ID: no gap, no duplicate", async () => {
    const { client, fetcher, clock } = await sseClient();
    const seen: unknown[][] = [];
    const todos = client.subscribe("Todo", {}, (rows) => seen.push(titles(rows)));
    await todos.ready;
    await addTodo(client, "one");
    await waitFor(() => expect(titles(todos.rows)).toEqual(["one"]));

    fetcher.dropAll();
    await waitFor(() => expect(clock.pending()).toBe(1));
    await addTodo(client, "two");
    await addTodo(client, "three");
    clock.fire();
    await waitFor(() => expect(titles(todos.rows)).toEqual(["one", "two", "three"]));
    expect(fetcher.requests).toHaveLength(2);
    expect(fetcher.requests[0]?.headers.get("last-event-id")).toBeNull();
    expect(fetcher.requests[1]?.headers.get("last-event-id")).toMatch(/^[0-9]+$/);
    // Each change applied once: one listener call per change, no snapshot repeated.
    expect(seen).toEqual([[], ["one"], ["one", "two"], ["one", "two", "three"]]);
    todos.unsubscribe();
  });

  it("reopens without Last-Event-ID on RESYNC_REQUIRED and replaces the rows", async () => {
    const { client, fetcher } = await sseClient();
    await addTodo(client, "old");
    const todos = client.subscribe("Todo", {}, () => undefined);
    expect(titles(await todos.ready)).toEqual(["old"]);
    await server().store.truncateAll();
    await waitFor(() => expect(todos.rows).toEqual([]));
    expect(fetcher.requests).toHaveLength(2);
    expect(fetcher.requests[1]?.headers.get("last-event-id")).toBeNull();
    await addTodo(client, "new");
    await waitFor(() => expect(titles(todos.rows)).toEqual(["new"]));
    todos.unsubscribe();
  });

  it("starts over when the identity changes", async () => {
    const { client, fetcher } = await sseClient();
    await addTodo(client, "mine");
    const seen: unknown[][] = [];
    const todos = client.subscribe("Todo", {}, (rows) => seen.push(titles(rows)));
    await todos.ready;
    const { client: other } = await signedInClient(server(), nextEmail());
    await addTodo(other, "theirs");
    await client.setToken(await other.token());
    await waitFor(() => expect(seen.at(-1)).toEqual(["theirs"]));
    expect(seen).toEqual([["mine"], [], ["theirs"]]);
    expect(fetcher.requests.at(-1)?.headers.get("last-event-id")).toBeNull();
    todos.unsubscribe();
  });

  it("reports 401 AUTH_REQUIRED without a caller and does not retry", async () => {
    const clock = manualTimers();
    const client = createClient({
      url: server().url,
      live: { transport: "sse", timers: clock.timers },
    });
    const errors: string[] = [];
    const todos = client.subscribe(
      "Todo",
      { onError: (error) => errors.push(error.code) },
      () => undefined,
    );
    await expect(todos.ready).rejects.toMatchObject({ code: "AUTH_REQUIRED", status: 401 });
    expect(errors).toEqual(["AUTH_REQUIRED"]);
    expect(clock.pending()).toBe(0);
    todos.unsubscribe();
  });

  it("live queries need a WebSocket", async () => {
    const { client } = await sseClient();
    const page = client.live("listTodos", {}, () => undefined);
    await expect(page.ready).rejects.toMatchObject({ code: "WEBSOCKET_UNAVAILABLE" });
  });

  it("falls back to SSE after three upgrades that never open, keeping the subscription", async () => {
    const { client: signedIn } = await signedInClient(server(), nextEmail());
    const attempts = { count: 0 };
    const clock = manualTimers();
    const log = statusLog();
    const fetcher = droppableFetch();
    const client = createClient({
      url: server().url,
      token: (await signedIn.token()) ?? "",
      fetch: fetcher.fetch,
      live: { WebSocket: blockedWebSocket(attempts), timers: clock.timers, onStatus: log.onStatus },
    });
    await addTodo(client, "via sse");
    const todos = client.subscribe("Todo", {}, () => undefined);
    for (let attempt = 1; attempt < 3; attempt += 1) {
      await waitFor(() => expect(clock.pending()).toBe(1));
      clock.fire();
    }
    expect(titles(await todos.ready)).toEqual(["via sse"]);
    expect(attempts.count).toBe(3);
    expect(log.states()).toContain("websocket:fallback");
    expect(fetcher.requests).toHaveLength(1);
    // Later subscriptions go straight to SSE.
    const more = client.subscribe("Todo", { where: { done: true } }, () => undefined);
    await more.ready;
    expect(attempts.count).toBe(3);
    todos.unsubscribe();
    more.unsubscribe();
  });
});
