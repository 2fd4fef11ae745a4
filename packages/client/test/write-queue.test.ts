import { beforeEach, describe, expect, it } from "vitest";
import { SvcError } from "../src/errors.js";
import {
  createClient,
  createMemoryStorage,
  generateId,
  type QueueEvent,
  type SvcClient,
  type TokenStorage,
} from "../src/index.js";
import { isTransientError } from "../src/write-queue.js";
import { manualTimers } from "./live-fixture.js";
import { emailSequence } from "./server.js";
import { serverForTests } from "./server-for-tests.js";
import {
  networkSwitch,
  signedInWith,
  type WriteSwitches,
  writeSwitches,
  writeWritesApp,
} from "./writes-fixture.js";

// The offline write queue against the real server: writes held while the
// server cannot be reached and sent in order afterwards, each with the key
// it was queued with (a write whose answer was lost is applied once),
// refused writes dropped and reported, and the queue kept in a storage
// that a new client (a reload) picks up.

let switches: WriteSwitches;
const server = serverForTests({ app: writeWritesApp });
beforeEach(() => {
  switches = writeSwitches();
});
const nextEmail = emailSequence("queue");

/** A signed-in client whose queue waits on timers the test fires, plus its network switch. */
async function setup(options: { storage?: TokenStorage; token?: string } = {}) {
  const network = networkSwitch();
  const clock = manualTimers();
  const clientOptions = {
    fetch: network.fetch,
    writes: { timers: clock.timers, random: () => 0.5 },
    ...(options.storage !== undefined && { queue: { storage: options.storage } }),
  };
  const { client } =
    options.token === undefined
      ? await signedInWith(server().url, nextEmail(), clientOptions)
      : { client: createClient({ url: server().url, token: options.token, ...clientOptions }) };
  const events: QueueEvent[] = [];
  client.queue.subscribe((event) => events.push(event));
  return { client, network, clock, events };
}

/** The applied and dropped events, compactly. */
function outcomes(events: readonly QueueEvent[]): string[] {
  return events.flatMap((event) => {
    if (event.type === "applied") {
      return [`applied ${event.write.kind}${event.replayed ? " (replayed)" : ""}`];
    }
    if (event.type === "dropped") return [`dropped ${event.write.kind} ${event.error.code}`];
    return [];
  });
}

/** Waits until the queue has nothing left to send now: empty, or waiting to try again. */
const settled = (client: SvcClient) =>
  expect
    .poll(() => {
      const { status, pending } = client.queue.state;
      return status === "waiting" || (status === "idle" && pending.length === 0);
    })
    .toBe(true);

async function serverTodos(client: SvcClient) {
  return (await client.entities("Todo").list({ order: "title" })).rows;
}

describe("the write queue", () => {
  it("holds writes while offline and sends them in order, once, after reconnecting", async () => {
    const { client, network, clock, events } = await setup();
    network.offline = true;
    const listId = generateId();
    const todoId = generateId();
    const gone = generateId();
    // Each write depends on the one before: out of order, the server would refuse them.
    const results = [
      client.queue.insert("List", { id: listId, title: "Home" }),
      client.queue.fn("addTodo", { id: todoId, title: "milk", listId }),
      client.queue.update("Todo", todoId, { done: true }),
      client.queue.insert("Todo", { id: gone, title: "temp", done: false }),
      client.queue.delete("Todo", gone),
    ];
    await settled(client);
    expect(client.queue.state).toMatchObject({
      status: "waiting",
      error: { code: "NETWORK_ERROR" },
    });
    expect(client.queue.state.pending.map((write) => write.kind)).toEqual([
      "insert",
      "fn",
      "update",
      "insert",
      "delete",
    ]);
    // Only the oldest write was tried; the wait is the backoff's.
    expect(network.seen).toHaveLength(1);
    expect(clock.scheduled).toEqual([125]);

    // Still offline when the wait ends: the same write is tried again, then a longer wait.
    clock.fire();
    await expect.poll(() => clock.pending()).toBe(1);
    expect(clock.scheduled).toEqual([125, 250]);

    network.offline = false;
    clock.fire();
    await expect(Promise.all(results)).resolves.toHaveLength(5);
    expect(client.queue.state).toMatchObject({ status: "idle", pending: [], error: null });
    const sent = network.seen.filter((request) => request.outcome === "answered");
    expect(sent.map((request) => `${request.method} ${request.path}`)).toEqual([
      "POST /api/entities/List",
      "POST /api/fn/addTodo",
      `PATCH /api/entities/Todo/${todoId}`,
      "POST /api/entities/Todo",
      `DELETE /api/entities/Todo/${gone}`,
    ]);
    // Every attempt of a write carried the key it was queued with.
    const keys = new Map<string, Set<string | null>>();
    for (const request of network.seen) {
      const name = `${request.method} ${request.path}`;
      keys.set(name, (keys.get(name) ?? new Set()).add(request.key));
    }
    expect([...keys.values()].every((set) => set.size === 1 && !set.has(null))).toBe(true);
    expect(outcomes(events)).toEqual([
      "applied insert",
      "applied fn",
      "applied update",
      "applied insert",
      "applied delete",
    ]);
    expect(await serverTodos(client)).toEqual([
      expect.objectContaining({ id: todoId, title: "milk", done: true, listId }),
    ]);
  });

  it("a write whose answer was lost is sent again with its key and applied once", async () => {
    const { client, network, clock, events } = await setup();
    network.loseAnswers(1);
    const id = generateId();
    const result = client.queue.fn("addTodo", { id, title: "once" });
    await settled(client);
    expect(client.queue.state.status).toBe("waiting");
    expect(network.seen.map((request) => request.outcome)).toEqual(["answer-lost"]);
    clock.fire();
    await expect(result).resolves.toMatchObject({ id, title: "once" });
    expect(network.seen.map((request) => request.outcome)).toEqual(["answer-lost", "answered"]);
    expect(network.seen[0]?.key).toBe(network.seen[1]?.key);
    expect(outcomes(events)).toEqual(["applied fn (replayed)"]);
    expect(await client.fn("countTodos")).toBe(1);
  });

  it("survives a reload: a new client on the same storage sends what the old one held, once", async () => {
    // One storage for both clients, as localStorage is for two page loads.
    const storage = createMemoryStorage();
    const before = await setup({ storage });
    const token = (await before.client.token()) ?? "";
    const first = generateId();
    const second = generateId();
    // The first write reaches the server but its answer is lost; then the page goes offline.
    before.network.loseAnswers(1);
    void before.client.queue.fn("addTodo", { id: first, title: "a" });
    await settled(before.client);
    before.network.offline = true;
    void before.client.queue.insert("Todo", { id: second, title: "b", done: false });
    await expect.poll(() => before.client.queue.state.pending.length).toBe(2);
    const stored = await storage.get("svc_write_queue");
    expect(JSON.parse(stored ?? "null")).toMatchObject({
      v: 1,
      writes: [
        { kind: "fn", name: "addTodo" },
        { kind: "insert", entity: "Todo" },
      ],
    });
    const keys = before.network.seen.map((request) => request.key);

    // The reload: a new client, online, with the same storage and token.
    const after = await setup({ storage, token });
    await after.client.queue.ready;
    await expect.poll(() => after.client.queue.state.status).toBe("idle");
    expect(after.network.seen.map((request) => [request.key, request.replayed])).toEqual([
      [keys[0], true],
      [expect.stringMatching(/^[0-9a-f]{40}$/), false],
    ]);
    expect(outcomes(after.events)).toEqual(["applied fn (replayed)", "applied insert"]);
    expect((await serverTodos(after.client)).map((todo) => todo.id)).toEqual([first, second]);
    expect(await storage.get("svc_write_queue")).toBeNull();
  });

  it("drops a write the server refuses for good, reports it, and sends the next", async () => {
    const { client, network, events } = await setup();
    const refused = client.queue.fn("refuseTodo", { title: "no" });
    const invalid = client.queue.insert("Todo", { title: "no done field" });
    const kept = client.queue.insert("Todo", { title: "yes", done: false });
    await expect(refused).rejects.toMatchObject({ code: "REFUSED", status: 422 });
    await expect(invalid).rejects.toMatchObject({ code: "MISSING_FIELD", status: 400 });
    await expect(kept).resolves.toMatchObject({ title: "yes" });
    expect(outcomes(events)).toEqual([
      "dropped fn REFUSED",
      "dropped insert MISSING_FIELD",
      "applied insert",
    ]);
    expect(network.seen).toHaveLength(3);
    expect(client.queue.state.pending).toEqual([]);
    expect((await serverTodos(client)).map((todo) => todo.title)).toEqual(["yes"]);
  });

  it("waits after a 5xx and sends the write again with the same key", async () => {
    const { client, network, clock, events } = await setup();
    switches.failAddTodo = 1;
    const result = client.queue.fn("addTodo", { title: "later" });
    await settled(client);
    expect(client.queue.state).toMatchObject({
      status: "waiting",
      error: { code: "TRY_LATER", status: 503 },
    });
    clock.fire();
    await expect(result).resolves.toMatchObject({ title: "later" });
    expect(network.seen.map((request) => request.key)).toEqual([
      network.seen[0]?.key,
      network.seen[0]?.key,
    ]);
    expect(outcomes(events)).toEqual(["applied fn"]);
    expect(await client.fn("countTodos")).toBe(1);
  });

  it("flush() sends at once instead of waiting out the backoff", async () => {
    const { client, network, clock } = await setup();
    network.offline = true;
    const result = client.queue.insert("List", { title: "x" });
    await settled(client);
    network.offline = false;
    await client.queue.flush();
    await expect(result).resolves.toMatchObject({ title: "x" });
    // The backoff timer was cancelled: firing nothing is left.
    expect(clock.pending()).toBe(0);
  });

  it("signing out drops the queued writes (QUEUE_CLEARED) and empties the storage", async () => {
    const storage = createMemoryStorage();
    const { client, network, events } = await setup({ storage });
    network.offline = true;
    const result = client.queue.insert("List", { title: "private" });
    await settled(client);
    await client.setToken(null);
    await expect(result).rejects.toMatchObject({ code: "QUEUE_CLEARED" });
    expect(outcomes(events)).toEqual(["dropped insert QUEUE_CLEARED"]);
    expect(client.queue.state).toMatchObject({ status: "idle", pending: [] });
    expect(await storage.get("svc_write_queue")).toBeNull();
  });
});

describe("which failures the queue waits out", () => {
  const error = (status: number, code = `HTTP_${status}`) => new SvcError(code, "x", { status });

  it.each([
    ["no answer", error(0, "NETWORK_ERROR"), true],
    ["408", error(408), true],
    ["429", error(429, "RATE_LIMITED"), true],
    ["500", error(500, "INTERNAL"), true],
    ["503", error(503), true],
    ["409 in progress", error(409, "IDEMPOTENCY_KEY_IN_PROGRESS"), true],
    ["400", error(400, "INVALID_ARGS"), false],
    ["401", error(401, "AUTH_REQUIRED"), false],
    ["403", error(403, "FORBIDDEN"), false],
    ["404", error(404, "NOT_FOUND"), false],
    ["409 reused", error(409, "IDEMPOTENCY_KEY_REUSED"), false],
    ["422", error(422, "REFUSED"), false],
  ])("%s: %s", (_, failure, transient) => {
    expect(isTransientError(failure)).toBe(transient);
  });
});
