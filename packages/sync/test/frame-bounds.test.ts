import { adminAuth, ConfigError } from "@svc/schema";
import type { Store } from "@svc/store";
import { testDatabases } from "@svc/tooling/databases";
import { afterEach, describe, expect, it } from "vitest";
import {
  createLoadScheduler,
  createReadTracker,
  createSync,
  DEFAULT_MAX_CONCURRENT_LOADS,
  DEFAULT_MAX_CONNECTION_LOADS,
  DEFAULT_MAX_RESULT_BYTES,
  DEFAULT_MAX_SNAPSHOT_BYTES,
  type LiveQueryRunner,
  type SyncOptions,
} from "../src/index.js";
import { collectingSession } from "./collecting-session.js";
import { alice, useSyncFixture } from "./fixture.js";

// Issue 21, finding 2: one caller stalled the server through subscriptions
// (one large row, 256 subscribes per socket: 488 MiB pushed). Snapshots and
// live query results now have a byte bound, refused with a code, and a
// connection loads only a few of them at a time.

type QueryFn = (store: Store, args: unknown) => Promise<unknown>;

const queries: Record<string, QueryFn> = {
  async taskTitles(store) {
    const page = await store.reader(alice).query("Task", { orderBy: { field: "title" } });
    return page.rows.map((row) => row.title);
  },
  async padded(store, args) {
    const { size } = args as { size: number };
    const count = (await store.reader(alice).query("Task")).rows.length;
    return { count, pad: "p".repeat(size) };
  },
};

describe("createLoadScheduler", () => {
  /** A load that records its start and end. */
  const load = (order: string[], name: string, extra?: () => void) => async () => {
    order.push(`${name} start`);
    extra?.();
    await new Promise((resolve) => setImmediate(resolve));
    order.push(`${name} end`);
  };

  it("starts one load per turn of the event loop, so other work runs between loads", async () => {
    const lane = createLoadScheduler({ maxConcurrent: 8, perLane: 8 }).lane();
    const order: string[] = [];
    const first = lane.run(async () => {
      order.push("first");
      // Other work waiting on the event loop (a request) goes before the next load.
      setImmediate(() => order.push("other work"));
    });
    const second = lane.run(async () => {
      order.push("second");
    });
    await Promise.all([first, second]);
    expect(order).toEqual(["first", "other work", "second"]);
  });

  it("lets connections take turns: a busy one does not hold back another's first load", async () => {
    const scheduler = createLoadScheduler({ maxConcurrent: 1, perLane: 4 });
    const busy = scheduler.lane();
    const other = scheduler.lane();
    const order: string[] = [];
    const loads = [1, 2, 3, 4, 5].map((n) => busy.run(load(order, `busy ${n}`)));
    loads.push(other.run(load(order, "other")));
    await Promise.all(loads);
    expect(order.filter((entry) => entry.endsWith("start"))).toEqual([
      "busy 1 start",
      "other start",
      "busy 2 start",
      "busy 3 start",
      "busy 4 start",
      "busy 5 start",
    ]);
  });

  it("runs at most perLane loads of a connection and maxConcurrent in all at once", async () => {
    const scheduler = createLoadScheduler({ maxConcurrent: 3, perLane: 2 });
    let lane = 0;
    let all = 0;
    const peaks = { lane: 0, all: 0 };
    const tracked = (ownLane: boolean) => async () => {
      if (ownLane) lane += 1;
      all += 1;
      peaks.lane = Math.max(peaks.lane, lane);
      peaks.all = Math.max(peaks.all, all);
      for (let turn = 0; turn < 5; turn += 1) await new Promise((r) => setImmediate(r));
      if (ownLane) lane -= 1;
      all -= 1;
    };
    const one = scheduler.lane();
    const others = [scheduler.lane(), scheduler.lane()];
    await Promise.all([
      ...Array.from({ length: 6 }, () => one.run(tracked(true))),
      ...others.flatMap((other) => Array.from({ length: 3 }, () => other.run(tracked(false)))),
    ]);
    expect(peaks).toEqual({ lane: 2, all: 3 });
  });

  it("hands the slot on when a load fails", async () => {
    const lane = createLoadScheduler({ maxConcurrent: 1, perLane: 1 }).lane();
    const failed = lane.run(() => Promise.reject(new Error("boom")));
    const thrown = lane.run(() => {
      throw new Error("at once");
    });
    const next = lane.run(async () => "ran");
    await expect(failed).rejects.toThrow("boom");
    await expect(thrown).rejects.toThrow("at once");
    await expect(next).resolves.toBe("ran");
  });
});

describe("createSync bounds", () => {
  it("default to 1 MiB per snapshot and per result, 8 loads at once, 4 per connection", () => {
    expect(DEFAULT_MAX_SNAPSHOT_BYTES).toBe(1024 * 1024);
    expect(DEFAULT_MAX_RESULT_BYTES).toBe(1024 * 1024);
    expect(DEFAULT_MAX_CONCURRENT_LOADS).toBe(8);
    expect(DEFAULT_MAX_CONNECTION_LOADS).toBe(4);
  });
});

describe.each(testDatabases())("frame bounds on $name", (database) => {
  const fixture = useSyncFixture(database);
  const stops: (() => void)[] = [];

  afterEach(() => {
    for (const stop of stops.splice(0)) stop();
  });

  /** A session for alice over a sync with `options`, collecting its frames. */
  const open = (
    options: Omit<SyncOptions, "store" | "log"> & { gate?: () => Promise<void> } = {},
  ) => {
    const { store, log } = fixture();
    const tracker = createReadTracker(store);
    const runs = { count: 0 };
    const runner: LiveQueryRunner = {
      run: (name, args) =>
        tracker.track(async () => {
          runs.count += 1;
          const value = await queries[name]?.(tracker.store, args);
          await options.gate?.();
          return value;
        }),
    };
    const { gate: _gate, ...syncOptions } = options;
    // Counts what snapshots read through the store.
    const reads = { queries: 0, rows: 0 };
    const counted: Store = {
      ...store,
      reader: (auth) => {
        const reader = store.reader(auth);
        return {
          get: (entity, id) => reader.get(entity, id),
          async query(entity, queryOptions) {
            const page = await reader.query(entity, queryOptions);
            reads.queries += 1;
            reads.rows += page.rows.length;
            return page;
          },
        };
      },
    };
    const sync = createSync({ store: counted, log, queries: runner, ...syncOptions });
    const { session, frames, bytes, until, unsubscribe } = collectingSession(sync, alice);
    stops.push(unsubscribe);
    stops.push(() => session.close());
    return {
      frames,
      bytes,
      runs,
      reads,
      subscribe: (id: string, frame: Record<string, unknown>) =>
        session.handle({ type: "subscribe", id, ...frame } as Parameters<typeof session.handle>[0]),
      until,
    };
  };

  const insertTasks = (titles: readonly string[]) =>
    fixture().store.transaction(adminAuth, async (db) => {
      for (const title of titles) await db.insert("Task", { title, assigneeId: "alice" });
    });

  /** Lets pending work finish: a few turns of the event loop and a round trip to the database. */
  const settle = async () => {
    for (let turn = 0; turn < 5; turn += 1) await new Promise((resolve) => setImmediate(resolve));
    await fixture().log.latestCursor();
    for (let turn = 0; turn < 5; turn += 1) await new Promise((resolve) => setImmediate(resolve));
  };

  it("refuses a snapshot past 1 MiB with SNAPSHOT_TOO_LARGE and drops the subscription", async () => {
    // Twenty rows of 60 KiB: 1.2 MiB of snapshot with the default bounds.
    await insertTasks(Array.from({ length: 20 }, (_, i) => `${i}`.padEnd(60 * 1024, "x")));
    const client = open();
    client.subscribe("big", { entity: "Task" });
    const [frame] = await client.until(1);
    expect(frame).toEqual({
      type: "error",
      id: "big",
      error: {
        code: "SNAPSHOT_TOO_LARGE",
        message: `The snapshot is larger than ${DEFAULT_MAX_SNAPSHOT_BYTES} bytes; subscribe with a smaller limit or a narrower where.`,
      },
    });
    // The subscription is gone: a later change is not sent, and its id is free again.
    await insertTasks(["after"]);
    await settle();
    expect(client.frames).toHaveLength(1);
    client.subscribe("big", { entity: "Task", limit: 5 });
    const [, snapshot] = await client.until(2);
    expect(snapshot).toMatchObject({ type: "snapshot", id: "big" });
    expect((snapshot as { rows: readonly unknown[] }).rows).toHaveLength(5);
  });

  it("sends a snapshot up to the bound and counts it in bytes of the frame", async () => {
    await insertTasks(["é".repeat(300)]);
    const client = open({ maxSnapshotBytes: 1000 });
    client.subscribe("t", { entity: "Task" });
    const [snapshot] = await client.until(1);
    expect(snapshot).toMatchObject({ type: "snapshot", rows: [{ title: "é".repeat(300) }] });
    const size = client.bytes[0] ?? 0;
    expect(size).toBeLessThanOrEqual(1000);
    // Two-byte characters: fewer than 1000 characters, more than 1000 bytes.
    await insertTasks(["é".repeat(300)]);
    client.subscribe("u", { entity: "Task" });
    // The insert reaches "t" as a change; "u" is refused.
    const frames = await client.until(3);
    expect(frames).toContainEqual(
      expect.objectContaining({
        type: "error",
        id: "u",
        error: expect.objectContaining({ code: "SNAPSHOT_TOO_LARGE" }),
      }),
    );
  });

  it("reads a large limit in pages and sends every row once, in order", async () => {
    const titles = Array.from({ length: 250 }, (_, i) => `t${String(i).padStart(3, "0")}`);
    await insertTasks(titles);
    const client = open();
    client.subscribe("all", { entity: "Task", orderBy: { field: "title" }, limit: 1000 });
    const [snapshot] = await client.until(1);
    expect(
      (snapshot as unknown as { rows: { title: string }[] }).rows.map((row) => row.title),
    ).toEqual(titles);
    client.subscribe("some", {
      entity: "Task",
      orderBy: { field: "title", direction: "desc" },
      limit: 150,
    });
    const [, some] = await client.until(2);
    expect((some as unknown as { rows: { title: string }[] }).rows.map((row) => row.title)).toEqual(
      [...titles].reverse().slice(0, 150),
    );
  });

  it("reads small rows in one query, and large rows a few at a time once it has seen them", async () => {
    await insertTasks(Array.from({ length: 100 }, (_, i) => `small ${i}`));
    const client = open();
    client.subscribe("small", { entity: "Task" });
    await client.until(1);
    expect(client.reads).toEqual({ queries: 1, rows: 100 });
    // A table of 60 KiB rows: refused once 18 rows passed 1 MiB.
    const large = open();
    await fixture().store.transaction(adminAuth, async (db) => {
      for (const { id } of (await db.query("Task")).rows) {
        await db.update("Task", id, { title: "x".repeat(60 * 1024) });
      }
    });
    large.subscribe("first", { entity: "Task" });
    await large.until(1);
    const firstRows = large.reads.rows;
    large.subscribe("second", { entity: "Task" });
    const frames = await large.until(2);
    expect(frames.map((frame) => (frame as { error?: { code: string } }).error?.code)).toEqual([
      "SNAPSHOT_TOO_LARGE",
      "SNAPSHOT_TOO_LARGE",
    ]);
    // The second read sized its page from the first: about a megabyte of rows, not a hundred.
    expect(large.reads.rows - firstRows).toBeLessThanOrEqual(20);
  });

  it("closes a live query whose value passes maxResultBytes with RESULT_TOO_LARGE", async () => {
    await insertTasks(["a"]);
    const client = open({ maxResultBytes: 2000 });
    client.subscribe("small", { query: "padded", args: { size: 100 } });
    client.subscribe("big", { query: "padded", args: { size: 5000 } });
    const frames = await client.until(2);
    expect(frames).toContainEqual(
      expect.objectContaining({
        type: "result",
        id: "small",
        value: { count: 1, pad: "p".repeat(100) },
      }),
    );
    expect(frames).toContainEqual({
      type: "error",
      id: "big",
      error: {
        code: "RESULT_TOO_LARGE",
        message: "The live query's value is larger than 2000 bytes; return less (a page, a count).",
      },
    });
    // The refused query runs no more; the other still follows changes.
    const runs = client.runs.count;
    await insertTasks(["b"]);
    await client.until(3);
    await settle();
    expect(client.frames[2]).toMatchObject({ type: "result", id: "small", value: { count: 2 } });
    expect(client.runs.count).toBe(runs + 1);
  });

  it("sends a long value again only when it changes", async () => {
    await insertTasks(["a"]);
    const client = open();
    client.subscribe("long", { query: "padded", args: { size: 4096 } });
    await client.until(1);
    await insertTasks(["b"]);
    const [, second] = await client.until(2);
    expect(second).toMatchObject({ type: "result", value: { count: 2 } });
    // A rerun with the same long value sends nothing.
    await fixture().store.transaction(adminAuth, async (db) => {
      const { rows } = await db.query("Task", { where: { title: "b" } });
      await db.update("Task", rows[0]?.id ?? "", { title: "c" });
    });
    // Wait for the rerun itself (under load it can take longer than a few turns).
    await expect.poll(() => client.runs.count, { timeout: 10_000 }).toBe(3);
    await settle();
    expect(client.frames).toHaveLength(2);
  });

  it("loads at most maxConnectionLoads snapshots and live query runs of a connection at once", async () => {
    await insertTasks(["a"]);
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const client = open({ maxConnectionLoads: 1, gate: () => held });
    client.subscribe("q", { query: "taskTitles" });
    client.subscribe("t", { entity: "Task" });
    await settle();
    // The live query holds the only slot: the snapshot waits for it.
    expect(client.frames).toEqual([]);
    release();
    const frames = await client.until(2);
    expect(frames.map((frame) => frame.type)).toEqual(["result", "snapshot"]);
  });

  it.each([
    ["maxSnapshotBytes", { maxSnapshotBytes: 0 }],
    ["maxResultBytes", { maxResultBytes: 1.5 }],
    ["maxConcurrentLoads", { maxConcurrentLoads: -1 }],
    ["maxConnectionLoads", { maxConnectionLoads: 0 }],
  ])("refuses an invalid %s with ConfigError", (name, options) => {
    const { store, log } = fixture();
    expect(() => createSync({ store, log, ...options })).toThrow(ConfigError);
    expect(() => createSync({ store, log, ...options })).toThrow(name);
  });
});
