import { type AuthContext, adminAuth } from "@svc/schema";
import type { Store } from "@svc/store";
import { testDatabases } from "@svc/tooling/databases";
import { afterEach, describe, expect, it } from "vitest";
import {
  createReadTracker,
  createSync,
  type LiveQueryRunner,
  readDependencies,
  SyncError,
} from "../src/index.js";
import { collectingSession } from "./collecting-session.js";
import { alice, syncManifest, useSyncFixture } from "./fixture.js";

// Live query functions through a session: the value first, a rerun when a
// change touches what the query read (or what its read rules look up),
// bursts coalesced, results only when the value changed.

type QueryFn = (store: Store, auth: AuthContext, args: unknown) => Promise<unknown>;

const queries: Record<string, QueryFn> = {
  async taskTitles(store, auth) {
    const page = await store.reader(auth).query("Task", { orderBy: { field: "title" } });
    return page.rows.map((row) => row.title);
  },
  async taskCount(store, auth) {
    return (await store.reader(auth).query("Task", { limit: 1000 })).rows.length;
  },
  async noteBodies(store, auth) {
    return (await store.reader(auth).query("Note")).rows.map((row) => row.body);
  },
};

describe("readDependencies", () => {
  it("follows exists(...) lookups of read rules", () => {
    const dependencies = readDependencies(syncManifest);
    expect([...(dependencies.get("Note") ?? [])]).toEqual(["Member"]);
    expect([...(dependencies.get("Task") ?? [])]).toEqual([]);
  });
});

describe.each(testDatabases())("live queries on $name", (database) => {
  const fixture = useSyncFixture(database);
  const stops: (() => void)[] = [];

  afterEach(() => {
    for (const stop of stops.splice(0)) stop();
  });

  /** A session whose live queries run `queries` over a read-tracking store. */
  const open = (options: { gate?: () => Promise<void>; withRunner?: boolean } = {}) => {
    const { store, log } = fixture();
    const tracker = createReadTracker(store);
    const counter = { runs: 0 };
    const runner: LiveQueryRunner = {
      run: (name, args, auth) =>
        tracker.track(async () => {
          counter.runs += 1;
          const query = queries[name];
          if (query === undefined) throw new SyncError("NOT_A_QUERY");
          const value = await query(tracker.store, auth, args);
          await options.gate?.();
          return value;
        }),
    };
    const sync = createSync({
      store,
      log,
      ...(options.withRunner !== false && { queries: runner }),
    });
    const { session, frames, until, unsubscribe } = collectingSession(sync, alice);
    stops.push(unsubscribe);
    stops.push(() => session.close());
    return {
      frames,
      counter,
      session,
      subscribe: (id: string, query: string, args?: unknown) =>
        session.handle({ type: "subscribe", id, query, ...(args !== undefined && { args }) }),
      until,
    };
  };

  const insertTask = (title: string, assigneeId = "alice") =>
    fixture().store.transaction(adminAuth, (db) => db.insert("Task", { title, assigneeId }));

  /** Lets pending reruns finish: a write through the log and a settled turn. */
  const settle = async () => {
    for (let turn = 0; turn < 5; turn += 1) await new Promise((resolve) => setImmediate(resolve));
    await fixture().log.latestCursor();
    for (let turn = 0; turn < 5; turn += 1) await new Promise((resolve) => setImmediate(resolve));
  };

  it("sends the value, then a new result only when a change alters it", async () => {
    await insertTask("b");
    const client = open();
    client.subscribe("titles", "taskTitles");
    expect(await client.until(1)).toMatchObject([{ type: "result", id: "titles", value: ["b"] }]);
    await insertTask("a");
    const [, second] = await client.until(2);
    expect(second).toMatchObject({ type: "result", value: ["a", "b"] });
    // Bob's task reruns the query (it read Task) but alice's value is the same.
    const runs = client.counter.runs;
    await insertTask("hidden", "bob");
    await expect.poll(() => client.counter.runs).toBe(runs + 1);
    await settle();
    expect(client.frames).toHaveLength(2);
    // A change to an entity the query never read does not run it.
    await fixture().store.transaction(adminAuth, (db) =>
      db.insert("Doc", { title: "d", tenantId: "t" }),
    );
    await settle();
    expect(client.counter.runs).toBe(runs + 1);
    const cursors = client.frames.map((frame) => Number((frame as { cursor: string }).cursor));
    expect(cursors[1]).toBeGreaterThan(cursors[0] ?? Infinity);
  });

  it("coalesces a burst of changes into a few runs with the final value", async () => {
    const client = open();
    client.subscribe("count", "taskCount");
    expect(await client.until(1)).toMatchObject([{ value: 0 }]);
    await Promise.all(Array.from({ length: 40 }, (_, index) => insertTask(`t${index}`)));
    await expect
      .poll(() => client.frames[client.frames.length - 1])
      .toMatchObject({ type: "result", value: 40 });
    expect(client.counter.runs).toBeLessThan(20);
  });

  it("reruns when an entity its read rules look up changes", async () => {
    await fixture().store.transaction(adminAuth, (db) =>
      db.insert("Note", { body: "plan", projectId: "p1" }),
    );
    const client = open();
    client.subscribe("notes", "noteBodies");
    expect(await client.until(1)).toMatchObject([{ value: [] }]);
    await fixture().store.transaction(adminAuth, (db) =>
      db.insert("Member", { projectId: "p1", userId: "alice" }),
    );
    expect((await client.until(2))[1]).toMatchObject({ value: ["plan"] });
  });

  it("does not miss a change committed while the first run is in flight", async () => {
    let release: (() => void) | undefined;
    let first = true;
    const client = open({
      gate: () => {
        if (!first) return Promise.resolve();
        first = false;
        return new Promise<void>((resolve) => {
          release = resolve;
        });
      },
    });
    client.subscribe("titles", "taskTitles");
    await expect.poll(() => release).toBeDefined();
    await insertTask("during");
    release?.();
    expect(await client.until(2)).toMatchObject([{ value: [] }, { value: ["during"] }]);
  });

  it("reports a failing query, a taken id, and a server without live queries", async () => {
    const client = open();
    client.subscribe("q", "nope");
    expect(await client.until(1)).toMatchObject([
      { type: "error", id: "q", error: { code: "NOT_A_QUERY" } },
    ]);
    client.subscribe("t", "taskTitles");
    client.subscribe("t", "taskTitles");
    const frames = await client.until(3);
    expect(frames.slice(1)).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          type: "error",
          id: "t",
          error: expect.objectContaining({ code: "SUBSCRIPTION_EXISTS" }),
        }),
        expect.objectContaining({ type: "result", id: "t" }),
      ]),
    );
    const without = open({ withRunner: false });
    without.subscribe("q", "taskTitles");
    expect(await without.until(1)).toMatchObject([
      { type: "error", error: { code: "LIVE_QUERIES_UNAVAILABLE" } },
    ]);
  });

  it("stops after unsubscribe", async () => {
    const client = open();
    client.subscribe("titles", "taskTitles");
    await client.until(1);
    client.session.handle({ type: "unsubscribe", id: "titles" });
    const runs = client.counter.runs;
    await insertTask("after");
    await settle();
    expect(client.counter.runs).toBe(runs);
    expect(client.frames).toHaveLength(1);
  });
});
