import { describe, expect, it } from "vitest";
import { createClient, generateId, SvcError } from "../src/index.js";
import { clientOf, emailSequence, signedInClient } from "./server.js";
import { serverForTests } from "./server-for-tests.js";

/** The todo example's types, as `svc codegen` would write them. */
type TodoApi = {
  functions: {
    createTodo: {
      args: { title: string; listId?: string; priority?: "low" | "high" };
      result: { id: string };
    };
    toggleTodo: { args: { id: string }; result: { id: string; done: boolean } };
    summary: { args: { listId?: string }; result: { open: number; done: number } };
  };
  entities: {
    Todo: {
      title: string;
      done: boolean;
      ownerId: string;
      listId: string | null;
      priority: "low" | "high";
      createdAt: string;
    };
    List: { title: string; createdAt: string };
  };
};

const server = serverForTests();
const nextEmail = emailSequence("data");

async function typedClient() {
  const { client, userId } = await signedInClient(server(), nextEmail());
  const token = (await client.token()) ?? "";
  return { client: createClient<TodoApi>({ url: server().url, token }), userId };
}

describe("functions", () => {
  it("fn posts the args and answers the JSON result", async () => {
    const { client } = await typedClient();
    const { id } = await client.fn("createTodo", { title: "Milk" });
    expect(id).toMatch(/^[0-9a-f]{40}$/);
    expect(await client.fn("toggleTodo", { id })).toEqual({ id, done: true });
    expect(await client.fn("summary")).toEqual({ open: 0, done: 1 });
  });

  it("invalid arguments are 400 INVALID_ARGS", async () => {
    const { client } = await signedInClient(server(), nextEmail());
    const error = await client.fn("createTodo", { title: "" }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SvcError);
    expect(error).toMatchObject({ code: "INVALID_ARGS", status: 400 });
  });

  it("an application error keeps its code and status", async () => {
    const { client } = await typedClient();
    await expect(client.fn("toggleTodo", { id: generateId() })).rejects.toMatchObject({
      code: "TODO_NOT_FOUND",
      status: 404,
    });
  });
});

describe("entities", () => {
  it("CRUD with a client-minted id", async () => {
    const { client, userId } = await typedClient();
    const todos = client.entities("Todo");
    const id = generateId();
    const inserted = await todos.insert({ id, title: "Bread", done: false, priority: "low" });
    expect(inserted).toMatchObject({ id, title: "Bread", ownerId: userId, listId: null });
    expect(await todos.get(id)).toEqual(inserted);
    const updated = await todos.update(id, { done: true });
    expect(updated).toMatchObject({ id, done: true });
    expect(await todos.delete(id)).toEqual({ deleted: true, id });
    const missing = await todos.get(id).catch((e: unknown) => e);
    expect(missing).toMatchObject({ code: "NOT_FOUND", status: 404 });
  });

  it("a malformed custom id is 400 INVALID_ID; a reused one 409 UNIQUE_VIOLATION", async () => {
    const { client } = await typedClient();
    const todos = client.entities("Todo");
    await expect(
      todos.insert({ id: "NOT-AN-ID", title: "x", done: false, priority: "low" }),
    ).rejects.toMatchObject({ code: "INVALID_ID", status: 400 });
    const id = generateId();
    await todos.insert({ id, title: "x", done: false, priority: "low" });
    await expect(
      todos.insert({ id, title: "y", done: false, priority: "low" }),
    ).rejects.toMatchObject({ code: "UNIQUE_VIOLATION", status: 409 });
  });

  it("pages through X-Next-Cursor with where and order, and iterates all rows", async () => {
    const { client } = await typedClient();
    const todos = client.entities("Todo");
    for (let i = 0; i < 7; i += 1) {
      await todos.insert({ title: `t${i}`, done: i % 2 === 0, priority: "low" });
    }
    const first = await todos.list({ where: { done: true }, order: "-title", limit: 3 });
    expect(first.rows.map((row) => row.title)).toEqual(["t6", "t4", "t2"]);
    expect(first.nextCursor).toEqual(expect.any(String));
    const second = await todos.list({
      where: { done: true },
      order: "-title",
      limit: 3,
      cursor: first.nextCursor ?? "",
    });
    expect(second).toEqual({ rows: [expect.objectContaining({ title: "t0" })], nextCursor: null });

    const pages: number[] = [];
    for await (const page of todos.pages({ limit: 2, order: "title" }))
      pages.push(page.rows.length);
    expect(pages).toEqual([2, 2, 2, 1]);
    const titles: string[] = [];
    for await (const row of todos.rows({ order: "title", limit: 3 })) titles.push(row.title);
    expect(titles).toEqual(["t0", "t1", "t2", "t3", "t4", "t5", "t6"]);
    let count = 0;
    for await (const _row of todos) count += 1;
    expect(count).toBe(7);
  });

  it("another user's rows stay hidden (policies apply)", async () => {
    const { client: owner } = await typedClient();
    const { id } = await owner.fn("createTodo", { title: "private" });
    const { client: other } = await typedClient();
    await expect(other.entities("Todo").get(id)).rejects.toMatchObject({ code: "NOT_FOUND" });
    expect((await other.entities("Todo").list()).rows).toEqual([]);
  });

  it("a bad query is 400 INVALID_QUERY; an unknown entity 404 ENTITY_NOT_FOUND", async () => {
    const { client } = await signedInClient(server(), nextEmail());
    await expect(client.entities("Todo").list({ limit: 0 })).rejects.toMatchObject({
      code: "INVALID_QUERY",
      status: 400,
    });
    await expect(client.entities("Nope").list()).rejects.toMatchObject({
      code: "ENTITY_NOT_FOUND",
      status: 404,
    });
  });
});

describe("API keys, JWT and billing", () => {
  it("create, use as the token, list, revoke", async () => {
    const { client, userId } = await signedInClient(server(), nextEmail());
    const created = await client.apiKeys.create({ name: "ci", scopes: "read" });
    expect(created.key).toMatch(/^pk\.key_/);
    const listed = await client.apiKeys.list();
    expect(listed).toEqual([
      expect.objectContaining({ id: created.id, name: "ci", scopes: "read" }),
    ]);
    expect(listed[0]).not.toHaveProperty("key");

    const withKey = clientOf(server(), { token: created.key });
    expect((await withKey.auth.me()).user_id).toBe(userId);
    expect(await withKey.fn("createTodo", { title: "from a key" })).toHaveProperty("id");
    await expect(withKey.apiKeys.list()).rejects.toMatchObject({
      code: "API_KEY_AUTH_FORBIDDEN",
      status: 403,
    });

    expect(await client.apiKeys.revoke(created.id)).toEqual({ revoked: true });
    await expect(withKey.auth.me()).rejects.toMatchObject({ code: "INVALID_API_KEY", status: 401 });
    // Only a refused session token is cleared; the key stays where the app put it.
    expect(await withKey.token()).toBe(created.key);
    await expect(client.apiKeys.revoke(created.id)).rejects.toMatchObject({ code: "NOT_FOUND" });
  });

  it("mintJWT answers a token the server accepts as a bearer", async () => {
    const { client, userId } = await signedInClient(server(), nextEmail());
    const minted = await client.auth.mintJWT();
    expect(minted.token.split(".")).toHaveLength(3);
    expect(minted.expires_at).toBeGreaterThan(Date.now() / 1000);
    const withJWT = clientOf(server(), { token: minted.token });
    expect((await withJWT.auth.me()).user_id).toBe(userId);
  });

  it("mintJWT without a session is 401", async () => {
    const error = await clientOf(server())
      .auth.mintJWT()
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ status: 401 });
  });

  it("entitlements of a user without subscriptions", async () => {
    const { client } = await signedInClient(server(), nextEmail());
    expect(await client.billing.entitlements()).toEqual({ active: false, subscriptions: [] });
  });

  it("checkout without a payment processor is 501 PAYMENT_NOT_CONFIGURED", async () => {
    const { client } = await signedInClient(server(), nextEmail());
    await expect(client.billing.checkout({ priceIds: ["price_1"] })).rejects.toMatchObject({
      code: "PAYMENT_NOT_CONFIGURED",
      status: 501,
    });
  });
});

describe("sync", () => {
  it("pull starts from the current cursor and then sees only the caller's own changes", async () => {
    const ada = await signedInClient(server(), nextEmail());
    const bob = await signedInClient(server(), nextEmail());
    const start = await ada.client.sync.pull();
    expect(start).toEqual({ changes: [], cursor: expect.stringMatching(/^\d+$/), has_more: false });
    const mine = await ada.client
      .entities("Todo")
      .insert({ title: "Milk", done: false, priority: "low" });
    await bob.client.entities("Todo").insert({ title: "Bob's", done: false, priority: "low" });
    await ada.client.entities("Todo").update(mine.id, { done: true });
    const pulled = await ada.client.sync.pull({ since: start.cursor, limit: 50 });
    const ops = pulled.changes.filter((change) => change.entity === "Todo");
    expect(ops.map((change) => [change.op, change.rowId])).toEqual([
      ["insert", mine.id],
      ["update", mine.id],
    ]);
    expect(ops[1]?.row).toMatchObject({ id: mine.id, done: true });
    expect(Number(pulled.cursor)).toBeGreaterThan(Number(start.cursor));
    const again = await ada.client.sync.pull({ since: pulled.cursor });
    expect(again.changes).toEqual([]);
  });

  it("a cursor from the future is 410 RESYNC_REQUIRED", async () => {
    const { client } = await signedInClient(server(), nextEmail());
    const error = await client.sync.pull({ since: "999999999" }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SvcError);
    expect(error).toMatchObject({ code: "RESYNC_REQUIRED", status: 410 });
  });
});
