import { describe, expect, it } from "vitest";
import {
  createClient,
  createMemoryStorage,
  generateId,
  type Subscription,
  type SvcClient,
  type WebSocketConstructor,
} from "../src/index.js";
import { manualTimers } from "./live-fixture.js";
import { emailSequence } from "./server.js";
import { serverForTests } from "./server-for-tests.js";
import { networkSwitch, signedInWith, writeWritesApp } from "./writes-fixture.js";

// Optimistic changes in live subscriptions against the real server: shown
// the moment a write is made (under the id the row will have), rolled back
// when the write fails, and replaced by the server's rows without a gap
// when it succeeds. Writes are held at the network switch so the state
// before the answer can be looked at.

type Row = { id: string } & Record<string, unknown>;

const server = serverForTests({ app: writeWritesApp });
const nextEmail = emailSequence("optimistic");
const NodeWebSocket = globalThis.WebSocket as unknown as WebSocketConstructor;

async function setup(options: { storage?: ReturnType<typeof createMemoryStorage> } = {}) {
  const network = networkSwitch();
  const clock = manualTimers();
  const { client } = await signedInWith(server().url, nextEmail(), {
    fetch: network.fetch,
    live: { WebSocket: NodeWebSocket },
    writes: { timers: clock.timers, random: () => 0.5 },
    ...(options.storage !== undefined && { queue: { storage: options.storage } }),
  });
  return { client, network, clock };
}

/** A subscription plus every list of rows its listener got. */
async function watch(client: SvcClient, where?: Record<string, unknown>) {
  const shown: Row[][] = [];
  const subscription = client.subscribe(
    "Todo",
    { orderBy: "title", ...(where !== undefined && { where }) },
    (rows) => shown.push([...(rows as Row[])]),
  ) as Subscription<Row>;
  await subscription.ready;
  return { subscription, shown, titles: () => subscription.rows.map((row) => row.title) };
}

describe("optimistic changes in live subscriptions", () => {
  it("an insert shows at once under its final id; the server's row takes its place with no gap", async () => {
    const { client, network } = await setup();
    const view = await watch(client);
    const held = network.hold();
    const inserting = client
      .entities("Todo")
      .insert({ title: "Milk", done: false }, { optimistic: true });
    const [guess] = view.subscription.rows;
    expect(guess).toEqual({
      id: expect.stringMatching(/^[0-9a-f]{40}$/),
      title: "Milk",
      done: false,
    });
    await held.sent;
    // The request carries the id the screen shows.
    expect(network.seen[0]?.body).toMatchObject({ id: guess?.id, title: "Milk" });
    held.release();
    const stored = await inserting;
    expect(stored.id).toBe(guess?.id);
    await expect.poll(() => view.subscription.rows[0]?.ownerId).toBeTypeOf("string");
    expect(view.subscription.rows).toEqual([stored]);
    // From the first optimistic row on, the view never went back to empty or showed two.
    const afterGuess = view.shown.slice(view.shown.findIndex((rows) => rows.length > 0));
    expect(afterGuess.every((rows) => rows.length === 1 && rows[0]?.id === stored.id)).toBe(true);

    // Reconciled: a later change made elsewhere is not hidden by the old guess.
    await client.fn("renameTodo", { id: stored.id, title: "Oat milk" });
    await expect.poll(view.titles).toEqual(["Oat milk"]);
    view.subscription.unsubscribe();
  });

  it("a confirmed update lets go once the server's change arrives: later changes show", async () => {
    const { client, network } = await setup();
    const id = generateId();
    await client.entities("Todo").insert({ id, title: "Tea", done: false });
    const view = await watch(client);
    await expect.poll(view.titles).toEqual(["Tea"]);
    const held = network.hold();
    const renaming = client
      .entities("Todo")
      .update(id, { title: "Green tea" }, { optimistic: true });
    expect(view.titles()).toEqual(["Green tea"]);
    held.release();
    await renaming;
    await client.fn("renameTodo", { id, title: "Black tea" });
    await expect.poll(view.titles).toEqual(["Black tea"]);
    expect(view.shown.map((rows) => rows.map((row) => row.title))).toEqual([
      ["Tea"],
      ["Green tea"],
      ["Black tea"],
    ]);
    view.subscription.unsubscribe();
  });

  it("a failed update is rolled back to the live row", async () => {
    const { client, network } = await setup();
    const id = generateId();
    await client.entities("Todo").insert({ id, title: "Bread", done: false });
    const view = await watch(client);
    await expect.poll(view.titles).toEqual(["Bread"]);
    const held = network.hold();
    const updating = client
      .entities("Todo")
      .update(id, { title: 42 as unknown as string }, { optimistic: true });
    expect(view.titles()).toEqual([42]);
    held.release();
    await expect(updating).rejects.toMatchObject({ code: "INVALID_FIELD", status: 400 });
    expect(view.titles()).toEqual(["Bread"]);
    view.subscription.unsubscribe();
  });

  it("an update that takes a row out of a view's where hides it until the server removes it", async () => {
    const { client, network } = await setup();
    const id = generateId();
    await client.entities("Todo").insert({ id, title: "Eggs", done: false });
    const open = await watch(client, { done: false });
    await expect.poll(open.titles).toEqual(["Eggs"]);
    const held = network.hold();
    const done = client.entities("Todo").update(id, { done: true }, { optimistic: true });
    expect(open.titles()).toEqual([]);
    held.release();
    await done;
    const everything = await watch(client);
    expect(everything.subscription.rows).toEqual([expect.objectContaining({ id, done: true })]);
    // Nothing in between brought the row back into the open view.
    expect(open.shown.slice(-1)).toEqual([[]]);
    expect(open.shown.findLastIndex((rows) => rows.length > 0)).toBe(open.shown.length - 2);
    open.subscription.unsubscribe();
    everything.subscription.unsubscribe();
  });

  it("a function call's optimistic changes are rolled back together when it is refused", async () => {
    const { client, network } = await setup();
    const keep = generateId();
    await client.entities("Todo").insert({ id: keep, title: "Keep", done: false });
    const view = await watch(client);
    await expect.poll(view.titles).toEqual(["Keep"]);
    const id = generateId();
    const held = network.hold();
    const refusing = client.fn(
      "refuseTodo",
      { id, title: "Nope" },
      {
        optimistic: (tx) => {
          tx.insert("Todo", { id, title: "Nope", done: false });
          tx.delete("Todo", keep);
        },
      },
    );
    expect(view.subscription.rows.map((row) => row.id)).toEqual([id]);
    held.release();
    await expect(refusing).rejects.toMatchObject({ code: "REFUSED", status: 422 });
    expect(view.titles()).toEqual(["Keep"]);
    view.subscription.unsubscribe();
  });

  it("queued writes show while offline, and again after a reload from the stored queue", async () => {
    const storage = createMemoryStorage();
    const before = await setup({ storage });
    const token = (await before.client.token()) ?? "";
    const view = await watch(before.client);
    before.network.offline = true;
    const id = generateId();
    void before.client.queue.insert("Todo", { id, title: "Offline", done: false });
    expect(view.titles()).toEqual(["Offline"]);
    await expect.poll(() => before.client.queue.state.status).toBe("waiting");
    view.subscription.unsubscribe();

    // The reload: the queued write shows before it is sent, then is applied.
    const network = networkSwitch();
    const held = network.hold();
    const after = createClient({
      url: server().url,
      token,
      fetch: network.fetch,
      live: { WebSocket: NodeWebSocket },
      queue: { storage },
    });
    const reloaded = await watch(after);
    await held.sent;
    expect(reloaded.subscription.rows).toEqual([{ id, title: "Offline", done: false }]);
    held.release();
    await expect.poll(() => reloaded.subscription.rows[0]?.ownerId).toBeTypeOf("string");
    expect(reloaded.titles()).toEqual(["Offline"]);
    expect(after.queue.state.pending).toEqual([]);
    reloaded.subscription.unsubscribe();
  });
});
