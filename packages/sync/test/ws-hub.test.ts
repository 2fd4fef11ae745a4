import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { type AuthContext, adminAuth, anonymousAuth, createAuthContext } from "@svc/schema";
import type { QueryOptions } from "@svc/store";
import { testDatabases } from "@svc/tooling/databases";
import { afterEach, describe, expect, it } from "vitest";
import { WebSocket } from "ws";
import {
  attachWebSocket,
  clientFrameSchema,
  createLiveCallers,
  OPERATOR_CLOSE,
  type ServerFrame,
  type Sync,
  type WebSocketHub,
  type WebSocketOptions,
  whereMatcher,
} from "../src/index.js";
import { arrivals } from "./arrivals.js";
import { alice, bob, useSyncFixture } from "./fixture.js";

// The WebSocket hub on a bare HTTP server: per-subscriber filtering by each
// rule kind, the snapshot/stream seam, backpressure and keepalive. The
// composed server's wiring (auth, origins, close) is tested in apps/server.

const acme = createAuthContext({ userId: "carol", tenantId: "acme", via: "session" });
const globex = createAuthContext({ userId: "dave", tenantId: "globex", via: "session" });
const callers: Record<string, AuthContext> = { alice, bob, acme, globex, admin: adminAuth };

interface Client {
  readonly socket: WebSocket;
  next(): Promise<ServerFrame>;
  send(frame: unknown): void;
  readonly closed: Promise<number>;
}

/** Subscribes `client` to every row of `entity` it may read; resolves with the next frame. */
function subscribe(client: Client, entity: string, id: string): Promise<ServerFrame> {
  client.send({ type: "subscribe", id, entity });
  return client.next();
}

/** A ping is answered next: no other frame was queued for `client` before it. */
async function expectNothingQueued(client: Client): Promise<void> {
  client.send({ type: "ping" });
  expect(await client.next()).toEqual({ type: "pong" });
}

function connect(
  url: string,
  token: string,
  options: { autoPong?: boolean } = {},
): Promise<Client> {
  const socket = new WebSocket(url, { headers: { authorization: `Bearer ${token}` }, ...options });
  const frames = arrivals<ServerFrame>();
  socket.on("message", (data) => frames.push(JSON.parse(String(data)) as ServerFrame));
  socket.on("error", () => undefined);
  const closed = new Promise<number>((resolve) => socket.on("close", (code) => resolve(code)));
  const client: Client = {
    socket,
    next: frames.next,
    send: (frame) => socket.send(JSON.stringify(frame)),
    closed,
  };
  return new Promise((resolve) => socket.once("open", () => resolve(client)));
}

describe("whereMatcher", () => {
  it.each([
    [{ title: "a" }, { id: "1", title: "a" }, true],
    [{ title: "a" }, { id: "1", title: "b" }, false],
    [{ done: true, n: 2 }, { id: "1", done: true, n: 2 }, true],
    [{ note: null }, { id: "1", note: null }, true],
    [{ note: null }, { id: "1" }, true],
    [{ note: null }, { id: "1", note: "x" }, false],
    [undefined, { id: "1" }, true],
  ])("where %j on %j is %s", (where, row, expected) => {
    expect(whereMatcher(where)(row)).toBe(expected);
  });
});

describe("clientFrameSchema", () => {
  it.each([
    { type: "ping" },
    { type: "unsubscribe", id: "a" },
    { type: "subscribe", id: "a", entity: "Task", where: { title: "x" }, limit: 10 },
    { type: "subscribe", id: "a", entity: "Task", orderBy: { field: "title", direction: "desc" } },
  ])("accepts %j", (frame) => {
    expect(clientFrameSchema.safeParse(frame).success).toBe(true);
  });

  it.each([
    { type: "pong" },
    { type: "subscribe", id: "a" },
    { type: "subscribe", id: "", entity: "Task" },
    { type: "subscribe", id: "a", entity: "Task", limit: 0 },
    { type: "ping", extra: 1 },
    [],
  ])("rejects %j", (frame) => {
    expect(clientFrameSchema.safeParse(frame).success).toBe(false);
  });
});

describe.each(testDatabases())("WebSocket hub on $name", (database) => {
  const fixture = useSyncFixture(database);
  let server: Server | undefined;
  let hub: WebSocketHub | undefined;
  const sockets: WebSocket[] = [];

  const start = async (
    options: Partial<Omit<WebSocketOptions, "sync">> & { sync?: Sync } = {},
  ): Promise<string> => {
    server = createServer();
    hub = attachWebSocket(server, {
      sync: fixture().sync,
      trustedOrigins: true,
      authenticate: {
        resolvers: [(token) => (token === "anonymous" ? anonymousAuth : (callers[token] ?? null))],
      },
      ...options,
    });
    const listening = server;
    await new Promise<void>((resolve) => listening.listen(0, "127.0.0.1", resolve));
    return `ws://127.0.0.1:${(listening.address() as AddressInfo).port}/ws`;
  };

  const open = async (url: string, token: string, options: { autoPong?: boolean } = {}) => {
    const client = await connect(url, token, options);
    sockets.push(client.socket);
    return client;
  };

  afterEach(async () => {
    for (const socket of sockets.splice(0)) socket.terminate();
    await hub?.close({ timeoutMs: 0 });
    const closing = server;
    if (closing !== undefined) await new Promise((resolve) => closing.close(resolve));
    hub = undefined;
    server = undefined;
  });

  it("gives each tenant only its rows, and the admin every row", async () => {
    const url = await start();
    const [forAcme, forGlobex, forAdmin] = await Promise.all([
      open(url, "acme"),
      open(url, "globex"),
      open(url, "admin"),
    ]);
    for (const client of [forAcme, forGlobex, forAdmin]) {
      client.send({ type: "subscribe", id: "docs", entity: "Doc" });
      expect(await client.next()).toMatchObject({ type: "snapshot", rows: [] });
    }
    const { store } = fixture();
    const a = await store.transaction(acme, (db) =>
      db.insert("Doc", { title: "a", tenantId: "acme" }),
    );
    const g = await store.transaction(globex, (db) =>
      db.insert("Doc", { title: "g", tenantId: "globex" }),
    );
    expect(await forAcme.next()).toMatchObject({ type: "change", op: "insert", rowId: a.id });
    expect(await forGlobex.next()).toMatchObject({ type: "change", op: "insert", rowId: g.id });
    expect(await forAdmin.next()).toMatchObject({ rowId: a.id });
    expect(await forAdmin.next()).toMatchObject({ rowId: g.id });
    await expectNothingQueued(forAcme);
  });

  it("answers exists(...) rules through the store", async () => {
    const url = await start();
    const client = await open(url, "alice");
    expect(await subscribe(client, "Note", "notes")).toMatchObject({ type: "snapshot" });
    const { store } = fixture();
    await store.transaction(adminAuth, (db) =>
      db.insert("Member", { projectId: "p1", userId: "alice" }),
    );
    await store.transaction(adminAuth, (db) =>
      db.insert("Note", { body: "hidden", projectId: "p2" }),
    );
    const seen = await store.transaction(adminAuth, (db) =>
      db.insert("Note", { body: "seen", projectId: "p1" }),
    );
    expect(await client.next()).toMatchObject({ op: "insert", rowId: seen.id });
  });

  it("sends a change committed during the snapshot read after the snapshot", async () => {
    const { sync, store } = fixture();
    let written: string | undefined;
    // A store whose snapshot read lets a write commit first.
    const racing: Sync = {
      ...sync,
      store: {
        ...store,
        reader: (auth) => ({
          get: (entity, id) => store.reader(auth).get(entity, id),
          async query(entity: string, options?: QueryOptions) {
            const row = await store.transaction(alice, (db) =>
              db.insert("Task", { title: "racing", assigneeId: "alice" }),
            );
            written = row.id;
            return store.reader(auth).query(entity, options);
          },
        }),
      },
    };
    const url = await start({ sync: racing });
    const client = await open(url, "alice");
    const snapshot = await subscribe(client, "Task", "t");
    expect(snapshot).toMatchObject({ type: "snapshot", rows: [{ id: written }] });
    const change = await client.next();
    expect(change).toMatchObject({ type: "change", op: "insert", rowId: written });
    if (snapshot.type !== "snapshot" || change.type !== "change") throw new Error("frames");
    expect(Number(change.cursor)).toBeGreaterThan(Number(snapshot.cursor));
  });

  it("never sends a change at or before the snapshot's cursor", async () => {
    const url = await start();
    const { store } = fixture();
    await store.transaction(alice, (db) =>
      db.insert("Task", { title: "old", assigneeId: "alice" }),
    );
    const client = await open(url, "alice");
    expect(await subscribe(client, "Task", "t")).toMatchObject({
      type: "snapshot",
      rows: [{ title: "old" }],
    });
    await expectNothingQueued(client);
  });

  it("sends every row of a many-row transaction, in order", async () => {
    const url = await start();
    const client = await open(url, "alice");
    expect(await subscribe(client, "Task", "t")).toMatchObject({ type: "snapshot" });
    const rows = await fixture().store.transaction(alice, async (db) => [
      await db.insert("Task", { title: "1", assigneeId: "alice" }),
      await db.insert("Task", { title: "2", assigneeId: "bob" }),
      await db.insert("Task", { title: "3", assigneeId: "alice" }),
    ]);
    expect(await client.next()).toMatchObject({ op: "insert", rowId: rows[0]?.id });
    expect(await client.next()).toMatchObject({ op: "insert", rowId: rows[2]?.id });
    await expectNothingQueued(client);
  });

  it("lists each socket's caller and subscriptions, and closes one on request with 1013", async () => {
    const registry = createLiveCallers({
      authenticate: { resolvers: [(token) => callers[token] ?? null] },
      recheckIntervalMs: 0,
      now: () => 1_700_000_000_000,
    });
    const url = await start({ callers: registry });
    const client = await open(url, "alice");
    client.send({ type: "subscribe", id: "mine", entity: "Task", where: { assigneeId: "alice" } });
    expect(await client.next()).toMatchObject({ type: "snapshot", id: "mine" });
    const [listed, ...others] = registry.list();
    expect(others).toEqual([]);
    expect(listed).toEqual({
      id: expect.stringMatching(/^[0-9a-f]{24}$/),
      transport: "websocket",
      openedAt: 1_700_000_000_000,
      userId: "alice",
      via: alice.via,
      isAdmin: false,
      isGuest: false,
      tenantId: null,
      roles: [],
      address: "127.0.0.1",
      userAgent: undefined,
      subscriptions: [{ id: "mine", entity: "Task", where: { assigneeId: "alice" } }],
    });
    // Never the credential.
    expect(JSON.stringify(registry.list())).not.toContain("Bearer");
    client.send({ type: "unsubscribe", id: "mine" });
    await expect.poll(() => registry.list()[0]?.subscriptions).toEqual([]);

    const reason = new Promise<string>((resolve) =>
      client.socket.once("close", (_code, data) => resolve(String(data))),
    );
    expect(registry.disconnect(listed?.id ?? "")).toBe(true);
    expect(await client.closed).toBe(1013);
    expect(await reason).toBe(OPERATOR_CLOSE);
    await expect.poll(() => registry.list()).toEqual([]);
    expect(registry.disconnect(listed?.id ?? "")).toBe(false);
    registry.close();
  });

  // The caller seam: the hub resolves through @svc/schema's resolveCaller,
  // as the HTTP gate does, from the sources it is given.
  it("resolves its callers from the sources: header, subprotocol, cookie; refusals say why", async () => {
    const url = await start({
      authenticate: {
        resolvers: [
          (token) => {
            if (token === "revoked")
              throw Object.assign(new Error("no"), { code: "INVALID_API_KEY" });
            return callers[token] ?? null;
          },
        ],
        cookie: { name: "svc_session", resolve: async (token) => (token === "good" ? bob : null) },
      },
    });
    const attempt = (init: { headers?: Record<string, string>; protocols?: string[] }) => {
      const socket = new WebSocket(url, init.protocols ?? [], { headers: init.headers ?? {} });
      sockets.push(socket);
      socket.on("error", () => undefined);
      return new Promise<string>((resolve) => {
        socket.once("open", () => socket.send(JSON.stringify({ type: "ping" })));
        socket.once("message", (data) =>
          resolve(`frame ${(JSON.parse(String(data)) as ServerFrame).type}`),
        );
        socket.once("close", (code, reason) => resolve(`${code} ${String(reason)}`));
      });
    };
    expect(await attempt({ headers: { authorization: "Bearer alice" } })).toBe("frame pong");
    expect(await attempt({ protocols: ["bearer.alice"] })).toBe("frame pong");
    expect(await attempt({ headers: { cookie: "svc_session=good" } })).toBe("frame pong");
    expect(await attempt({ headers: { cookie: "svc_session=stale" } })).toBe(
      "1008 authentication required",
    );
    expect(await attempt({})).toBe("1008 authentication required");
    expect(await attempt({ headers: { authorization: "Bearer nobody" } })).toBe(
      "1008 invalid token",
    );
    expect(await attempt({ headers: { authorization: "Basic abc" } })).toBe(
      "1008 the Authorization header must be Bearer <token>",
    );
    expect(await attempt({ protocols: ["bearer.revoked"] })).toBe("1008 INVALID_API_KEY");
    // A bearer token wins over the cookie: an unknown one is refused, never a cookie fallback.
    expect(
      await attempt({ headers: { authorization: "Bearer nobody", cookie: "svc_session=good" } }),
    ).toBe("1008 invalid token");
  });

  it("closes an anonymous caller with 1008", async () => {
    const url = await start();
    const client = await open(url, "anonymous");
    expect(await client.closed).toBe(1008);
  });

  it("closes a consumer past its queue bound with 1013", async () => {
    const url = await start({ maxQueue: 64 });
    const { store } = fixture();
    await store.transaction(alice, (db) =>
      db.insert("Task", { title: "x".repeat(200), assigneeId: "alice" }),
    );
    const client = await open(url, "alice");
    client.send({ type: "subscribe", id: "t", entity: "Task" });
    expect(await client.closed).toBe(1013);
  });

  it("terminates a peer that stops answering keepalive pings", async () => {
    // Long enough that a loaded machine's event loop never delays a live
    // peer's pong past one interval; the dead peer still goes within two.
    const url = await start({ keepaliveMs: 250 });
    const live = await open(url, "alice");
    const dead = await open(url, "bob", { autoPong: false });
    expect(await dead.closed).toBe(1006);
    await expectNothingQueued(live);
    expect(hub?.connections).toBe(1);
  });
});
