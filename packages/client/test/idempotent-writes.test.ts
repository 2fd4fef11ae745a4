import { beforeEach, describe, expect, it } from "vitest";
import { generateId, type SvcClient, SvcError, type WriteOptions } from "../src/index.js";
import { emailSequence } from "./server.js";
import { serverForTests } from "./server-for-tests.js";
import {
  immediateTimers,
  type NetworkSwitch,
  networkSwitch,
  signedInWith,
  writeSwitches,
  writeWritesApp,
} from "./writes-fixture.js";

// Every write the client sends carries an Idempotency-Key and, when no
// answer came, is sent again with the same key: against the real server,
// with a fetch that forwards the request and then loses the answer, the
// write is applied once.

const server = serverForTests({ app: writeWritesApp });
beforeEach(() => {
  writeSwitches();
});
const nextEmail = emailSequence("writes");

async function setup(writes: WriteOptions = {}) {
  const network = networkSwitch();
  const clock = immediateTimers();
  const { client } = await signedInWith(server().url, nextEmail(), {
    fetch: network.fetch,
    writes: { timers: clock.timers, random: () => 0.5, ...writes },
  });
  return { client, network, delays: clock.delays };
}

const countTodos = async (client: SvcClient): Promise<number> =>
  (await client.fn("countTodos")) as number;

const keysOf = (network: NetworkSwitch): (string | null)[] =>
  network.seen.map((request) => request.key);

describe("idempotency keys on writes", () => {
  it("a function call whose answer was lost is sent again with the same key and applied once", async () => {
    const { client, network, delays } = await setup();
    network.loseAnswers(1);
    const todo = (await client.fn("addTodo", { title: "Milk" })) as { id: string };
    expect(network.seen.map((request) => request.outcome)).toEqual(["answer-lost", "answered"]);
    const [first, second] = keysOf(network);
    expect(first).toMatch(/^[0-9a-f]{40}$/);
    expect(second).toBe(first);
    // The second answer is the first one, recorded by the server.
    expect(network.seen[1]?.replayed).toBe(true);
    expect(await client.entities("Todo").get(todo.id)).toMatchObject({ title: "Milk" });
    expect(await countTodos(client)).toBe(1);
    // One backoff wait: half (random 0.5) of the first 250 ms ceiling.
    expect(delays).toEqual([125]);
  });

  // Regression (issue 22, three servers behind nginx): a server killed
  // after its commit leaves nginx answering 502 with its own page; the
  // client gave up with HTTP_502 although the write had been applied.
  it("a write answered by a load balancer's 502 page is sent again with the same key and applied once", async () => {
    const { client, network, delays } = await setup();
    network.gatewayErrors(1);
    const todo = (await client.fn("addTodo", { title: "Bread" })) as { id: string };
    expect(network.seen.map((request) => request.outcome)).toEqual(["bad-gateway", "answered"]);
    expect(new Set(keysOf(network)).size).toBe(1);
    expect(network.seen[1]?.replayed).toBe(true);
    expect(await client.entities("Todo").get(todo.id)).toMatchObject({ title: "Bread" });
    expect(await countTodos(client)).toBe(1);
    expect(delays).toEqual([125]);
  });

  it.each([
    ["insert", "POST"],
    ["update", "PATCH"],
    ["delete", "DELETE"],
  ] as const)("an entity %s whose answer was lost is applied once", async (op, method) => {
    const { client, network } = await setup();
    const todos = client.entities("Todo");
    const id = generateId();
    if (op !== "insert") await todos.insert({ id, title: "a", done: false });
    network.seen.length = 0;
    network.loseAnswers(1);
    const answer =
      op === "insert"
        ? await todos.insert({ id, title: "a", done: false })
        : op === "update"
          ? await todos.update(id, { done: true })
          : await todos.delete(id);
    expect(network.seen.map((request) => [request.method, request.outcome])).toEqual([
      [method, "answer-lost"],
      [method, "answered"],
    ]);
    expect(new Set(keysOf(network)).size).toBe(1);
    expect(network.seen[1]?.replayed).toBe(true);
    // Without the key, the insert would be 409 UNIQUE_VIOLATION and the delete 404.
    expect(answer).toMatchObject(op === "delete" ? { deleted: true, id } : { id });
    expect(await countTodos(client)).toBe(op === "delete" ? 0 : 1);
  });

  it("each call has its own key", async () => {
    const { client, network } = await setup();
    await client.fn("addTodo", { title: "a" });
    await client.fn("addTodo", { title: "a" });
    const [first, second] = keysOf(network);
    expect(first).not.toBe(second);
    expect(await countTodos(client)).toBe(2);
  });

  it("gives up after `retries` resends, every one with the same key", async () => {
    const { client, network, delays } = await setup({ retries: 3 });
    network.offline = true;
    const error = await client.fn("addTodo", { title: "x" }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(SvcError);
    expect(error).toMatchObject({ code: "NETWORK_ERROR", status: 0 });
    expect(network.seen).toHaveLength(4);
    expect(new Set(keysOf(network)).size).toBe(1);
    expect(delays).toEqual([125, 250, 500]);
    network.offline = false;
    expect(await countTodos(client)).toBe(0);
  });

  it("a call's own key names the write: the same key with other arguments is refused", async () => {
    const { client, network } = await setup();
    const key = "order-2024-0001";
    await client.fn("addTodo", { title: "a" }, { idempotencyKey: key });
    const replay = await client.fn("addTodo", { title: "a" }, { idempotencyKey: key });
    expect(network.seen[1]).toMatchObject({ key, replayed: true });
    expect(replay).toMatchObject({ title: "a" });
    await expect(
      client.fn("addTodo", { title: "b" }, { idempotencyKey: key }),
    ).rejects.toMatchObject({ code: "IDEMPOTENCY_KEY_REUSED", status: 409 });
    expect(await countTodos(client)).toBe(1);
  });

  it("`idempotencyKey: false` sends no key and does not retry (the lost write stays applied)", async () => {
    const { client, network } = await setup();
    network.loseAnswers(1);
    await expect(
      client.fn("addTodo", { title: "a" }, { idempotencyKey: false }),
    ).rejects.toMatchObject({ code: "NETWORK_ERROR" });
    expect(keysOf(network)).toEqual([null]);
    expect(await countTodos(client)).toBe(1);
  });

  it("`writes: { idempotency: false }` sends writes without keys", async () => {
    const { client, network } = await setup({ idempotency: false });
    await client.fn("addTodo", { title: "a" });
    await client.entities("List").insert({ title: "l" });
    expect(keysOf(network)).toEqual([null, null]);
  });

  it("an abort while waiting to resend rejects with ABORTED and sends nothing more", async () => {
    const network = networkSwitch();
    const pending: (() => void)[] = [];
    const { client } = await signedInWith(server().url, nextEmail(), {
      fetch: network.fetch,
      writes: {
        timers: {
          setTimeout: (callback) => pending.push(callback),
          clearTimeout: () => undefined,
        },
      },
    });
    network.offline = true;
    const controller = new AbortController();
    const call = client.fn("addTodo", { title: "a" }, { signal: controller.signal });
    await expect.poll(() => pending.length).toBe(1);
    controller.abort();
    await expect(call).rejects.toMatchObject({ code: "ABORTED" });
    expect(network.seen).toHaveLength(1);
  });
});

describe("client-minted ids", () => {
  it("an id made by generateId goes through function arguments and comes back as the row's", async () => {
    const { client } = await setup();
    const id = generateId();
    const todo = (await client.fn("addTodo", { id, title: "Bread" })) as { id: string };
    expect(todo.id).toBe(id);
    expect(await client.entities("Todo").get(id)).toMatchObject({ id, title: "Bread" });
  });

  it("and through the entity API, as does a list a todo refers to", async () => {
    const { client } = await setup();
    const listId = generateId();
    const todoId = generateId();
    expect(await client.entities("List").insert({ id: listId, title: "Home" })).toMatchObject({
      id: listId,
    });
    const todo = await client
      .entities("Todo")
      .insert({ id: todoId, title: "x", done: false, listId });
    expect(todo).toMatchObject({ id: todoId, listId });
  });

  it("a second insert with the same id is 409 UNIQUE_VIOLATION, not a second row", async () => {
    const { client } = await setup();
    const id = generateId();
    await client.fn("addTodo", { id, title: "a" });
    await expect(client.fn("addTodo", { id, title: "a" })).rejects.toMatchObject({
      code: "UNIQUE_VIOLATION",
      status: 409,
    });
    expect(await countTodos(client)).toBe(1);
  });
});
