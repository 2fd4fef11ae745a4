import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { type AuthContext, adminAuth, anonymousAuth } from "@svc/schema";
import { testDatabases } from "@svc/tooling/databases";
import { EventSource } from "eventsource";
import { afterEach, describe, expect, it } from "vitest";
import {
  createEventStreams,
  createLiveCallers,
  type EventStreamOptions,
  type EventStreams,
  parseEventsQuery,
  type ServerFrame,
} from "../src/index.js";
import { arrivals } from "./arrivals.js";
import { alice, bob, expectSyncError, useSyncFixture } from "./fixture.js";

// The SSE transport on a bare HTTP server, read by a real EventSource
// client: the same frames as the WebSocket transport, one subscription per
// stream, resumable with Last-Event-ID.

const callers: Record<string, AuthContext> = { alice, bob, admin: adminAuth };

interface Received {
  readonly id: string;
  readonly frame: ServerFrame;
}

interface Reader {
  readonly source: EventSource;
  next(): Promise<Received>;
  /** Resolves on the next transport error (a dropped or refused stream). */
  readonly errors: number;
}

function read(url: string, token: string, fetchImpl: typeof fetch = fetch): Reader {
  const queue = arrivals<Received>();
  let errors = 0;
  const source = new EventSource(url, {
    fetch: (input, init) =>
      fetchImpl(input, {
        ...init,
        headers: { ...init?.headers, authorization: `Bearer ${token}` },
      }),
  });
  source.onmessage = (message) =>
    queue.push({
      id: message.lastEventId,
      frame: JSON.parse(message.data as string) as ServerFrame,
    });
  source.onerror = () => {
    errors += 1;
  };
  return {
    source,
    next: queue.next,
    get errors() {
      return errors;
    },
  };
}

describe("parseEventsQuery", () => {
  it("reads the entity API's conventions and prefers Last-Event-ID to since", () => {
    const query = new URLSearchParams({
      entity: "Task",
      where: '{"title":"a"}',
      order: "-title",
      limit: "5",
      since: "3",
    });
    expect(parseEventsQuery(query, "7")).toEqual({
      type: "subscribe",
      id: "events",
      entity: "Task",
      where: { title: "a" },
      orderBy: { field: "title", direction: "desc" },
      limit: 5,
      since: "7",
    });
    expect(parseEventsQuery(query, undefined)).toMatchObject({ since: "3" });
  });

  it.each([
    ["no entity", ""],
    ["an unknown parameter", "entity=Task&token=x"],
    ["a repeated parameter", "entity=Task&entity=Doc"],
    ["where that is not an object", "entity=Task&where=[1]"],
    ["where that is not JSON", "entity=Task&where={"],
    ["a limit past 1000", "entity=Task&limit=1001"],
    ["an order that is not a field", "entity=Task&order=a;drop"],
  ])("refuses %s with INVALID_QUERY", async (_name, search) => {
    await expectSyncError(
      Promise.resolve().then(() => parseEventsQuery(new URLSearchParams(search), undefined)),
      "INVALID_QUERY",
    );
  });
});

describe.each(testDatabases())("event streams on $name", (database) => {
  const fixture = useSyncFixture(database);
  let server: Server | undefined;
  let streams: EventStreams | undefined;
  const sources: EventSource[] = [];

  const start = async (options: Partial<EventStreamOptions> = {}): Promise<string> => {
    streams = createEventStreams({
      sync: fixture().sync,
      trustedOrigins: ["https://app.example"],
      retryMs: 20,
      authenticate: {
        resolvers: [(token) => (token === "anonymous" ? anonymousAuth : (callers[token] ?? null))],
      },
      ...options,
    });
    const handler = streams;
    server = createServer((req, res) => handler.handle(req, res));
    const listening = server;
    await new Promise<void>((resolve) => listening.listen(0, "127.0.0.1", resolve));
    return `http://127.0.0.1:${(listening.address() as AddressInfo).port}/events`;
  };

  const open = (url: string, token: string, fetchImpl?: typeof fetch): Reader => {
    const reader = read(url, token, fetchImpl);
    sources.push(reader.source);
    return reader;
  };

  const insertTask = (title: string, assigneeId: string) =>
    fixture().store.transaction(callers[assigneeId] ?? alice, (db) =>
      db.insert("Task", { title, assigneeId }),
    );

  afterEach(async () => {
    for (const source of sources.splice(0)) source.close();
    await streams?.close();
    const closing = server;
    if (closing !== undefined) {
      closing.closeAllConnections();
      await new Promise((resolve) => closing.close(resolve));
    }
    streams = undefined;
    server = undefined;
  });

  it("streams a snapshot then only the changes each caller may read", async () => {
    const url = await start();
    await insertTask("before", "alice");
    const forAlice = open(`${url}?entity=Task&id=tasks`, "alice");
    const forBob = open(`${url}?entity=Task`, "bob");
    const snapshot = await forAlice.next();
    expect(snapshot).toMatchObject({
      frame: { type: "snapshot", id: "tasks", rows: [{ title: "before" }] },
    });
    expect(snapshot.id).toBe((snapshot.frame as { cursor: string }).cursor);
    expect(await forBob.next()).toMatchObject({ frame: { id: "events", rows: [] } });
    await insertTask("for bob", "bob");
    const mine = await insertTask("for alice", "alice");
    const change = await forAlice.next();
    expect(change).toMatchObject({
      frame: { type: "change", id: "tasks", op: "insert", rowId: mine.id },
    });
    expect(change.id).toBe((change.frame as { cursor: string }).cursor);
    expect(await forBob.next()).toMatchObject({ frame: { row: { title: "for bob" } } });
  });

  it("lists a stream with its caller and subscription, and ends it on an operator's request", async () => {
    const registry = createLiveCallers({
      authenticate: { resolvers: [(token) => callers[token] ?? null] },
      recheckIntervalMs: 0,
    });
    const url = await start({ callers: registry });
    const reader = open(
      `${url}?entity=Task&id=tasks&where=${encodeURIComponent('{"assigneeId":"alice"}')}`,
      "alice",
    );
    expect(await reader.next()).toMatchObject({ frame: { type: "snapshot", id: "tasks" } });
    expect(registry.list()).toEqual([
      expect.objectContaining({
        transport: "sse",
        userId: "alice",
        subscriptions: [{ id: "tasks", entity: "Task", where: { assigneeId: "alice" } }],
      }),
    ]);
    const id = registry.list()[0]?.id ?? "";
    expect(registry.disconnect(id)).toBe(true);
    // The stream ended and left the registry (the EventSource reconnects as a new one).
    await expect.poll(() => reader.errors).toBeGreaterThan(0);
    await expect.poll(() => registry.list().map((connection) => connection.id)).not.toContain(id);
    registry.close();
  });

  it("resumes a dropped stream from Last-Event-ID with no gap and no duplicate", async () => {
    const url = await start();
    const lastEventIds: (string | null)[] = [];
    const recording: typeof fetch = (input, init) => {
      lastEventIds.push(new Headers(init?.headers).get("last-event-id"));
      return fetch(input, init);
    };
    const reader = open(`${url}?entity=Task`, "alice", recording);
    expect(await reader.next()).toMatchObject({ frame: { type: "snapshot" } });
    const first = await insertTask("one", "alice");
    const seen = await reader.next();
    expect(seen.frame).toMatchObject({ rowId: first.id });
    // The connection drops (a proxy restart, a network change).
    server?.closeAllConnections();
    // Written while the client is away.
    const missed = [await insertTask("two", "alice"), await insertTask("three", "alice")];
    await insertTask("not mine", "bob");
    const later = [await reader.next(), await reader.next()];
    expect(later.map((received) => received.frame)).toMatchObject(
      missed.map((row) => ({ type: "change", op: "insert", rowId: row.id })),
    );
    expect(lastEventIds).toEqual([null, seen.id]);
    const live = await insertTask("four", "alice");
    expect((await reader.next()).frame).toMatchObject({ rowId: live.id });
  });

  it("answers RESYNC_REQUIRED for a cursor the log cannot serve", async () => {
    const url = await start();
    const reader = open(`${url}?entity=Task&since=999`, "alice");
    expect(await reader.next()).toMatchObject({
      frame: { type: "error", id: "events", error: { code: "RESYNC_REQUIRED" } },
    });
  });

  it.each([
    ["no caller", {}, 401, "AUTH_REQUIRED"],
    ["an anonymous caller", { authorization: "Bearer anonymous" }, 401, "AUTH_REQUIRED"],
    ["an unknown token", { authorization: "Bearer nobody" }, 401, "AUTH_REQUIRED"],
    [
      "an untrusted origin",
      { authorization: "Bearer alice", origin: "https://evil.example" },
      403,
      "ORIGIN_NOT_TRUSTED",
    ],
  ])("refuses %s with a JSON envelope", async (_name, headers, status, code) => {
    const url = await start();
    const response = await fetch(`${url}?entity=Task`, { headers });
    expect(response.status).toBe(status);
    expect(response.headers.get("access-control-allow-origin")).toBeNull();
    expect(await response.json()).toMatchObject({ error: { code } });
  });

  it("refuses a malformed query (400) and an unknown entity (404)", async () => {
    const url = await start();
    const headers = { authorization: "Bearer alice" };
    const bad = await fetch(`${url}?entity=Task&where=nope`, { headers });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ error: { code: "INVALID_QUERY" } });
    const unknown = await fetch(`${url}?entity=Nope`, { headers });
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toMatchObject({ error: { code: "ENTITY_NOT_FOUND" } });
  });

  it("lets a trusted origin in with credentials and answers its preflight", async () => {
    const url = await start();
    const origin = "https://app.example";
    const preflight = await fetch(`${url}?entity=Task`, { method: "OPTIONS", headers: { origin } });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get("access-control-allow-headers")).toContain("Authorization");
    const controller = new AbortController();
    const response = await fetch(`${url}?entity=Task`, {
      headers: { origin, authorization: "Bearer alice" },
      signal: controller.signal,
    });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/event-stream; charset=utf-8");
    expect(response.headers.get("access-control-allow-origin")).toBe(origin);
    expect(response.headers.get("access-control-allow-credentials")).toBe("true");
    controller.abort();
  });

  it("ends a stream that falls past its queue bound; the client resumes from its last id", async () => {
    const url = await start({ maxQueue: 64 * 1024 });
    const controller = new AbortController();
    const response = await fetch(`${url}?entity=Task`, {
      headers: { authorization: "Bearer alice" },
      signal: controller.signal,
    });
    expect(response.status).toBe(200);
    // The client reads nothing while ~2 MB of changes are sent its way:
    // once the socket's buffers are full, unsent bytes pile up and the
    // stream is ended instead of growing without bound.
    const { store } = fixture();
    await store.transaction(alice, async (db) => {
      for (let index = 0; index < 1000; index += 1) {
        await db.insert("Task", { title: "x".repeat(2000), assigneeId: "alice" });
      }
    });
    await expect.poll(() => streams?.connections, { timeout: 10_000 }).toBe(0);
    controller.abort();
    // Resuming from the snapshot's cursor replays every change, in order.
    const reader = open(`${url}?entity=Task&since=0`, "alice");
    let count = 0;
    let previous = 0;
    while (count < 1000) {
      const { frame, id } = await reader.next();
      expect(frame).toMatchObject({ type: "change", op: "insert" });
      expect(Number(id)).toBeGreaterThan(previous);
      previous = Number(id);
      count += 1;
    }
  });

  it("ends open streams on close and refuses new ones with 503", async () => {
    const url = await start();
    const controller = new AbortController();
    const response = await fetch(`${url}?entity=Task`, {
      headers: { authorization: "Bearer alice" },
      signal: controller.signal,
    });
    expect(streams?.connections).toBe(1);
    const body = response.body?.getReader();
    const decoder = new TextDecoder();
    let text = "";
    while (!text.includes('"type":"snapshot"')) {
      const chunk = await body?.read();
      if (chunk === undefined || chunk.done) throw new Error("the stream ended early");
      text += decoder.decode(chunk.value);
    }
    await streams?.close();
    expect((await body?.read())?.done).toBe(true);
    expect(streams?.connections).toBe(0);
    const refused = await fetch(`${url}?entity=Task`, {
      headers: { authorization: "Bearer alice" },
    });
    expect(refused.status).toBe(503);
    expect(await refused.json()).toMatchObject({ error: { code: "SERVICE_UNAVAILABLE" } });
  });
});
