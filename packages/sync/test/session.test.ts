import { adminAuth, createAuthContext } from "@svc/schema";
import type { EntityReader } from "@svc/store";
import { testDatabases } from "@svc/tooling/databases";
import { afterEach, describe, expect, it } from "vitest";
import { createExistsCache, MAX_SUBSCRIPTIONS, type SubscribeFrame } from "../src/index.js";
import { collectingSession } from "./collecting-session.js";
import { alice, bob, useSyncFixture } from "./fixture.js";

// Sessions without a transport: resuming with `since` (the missed changes
// from the log, then live ones, none twice) and the shared exists cache.

describe.each(testDatabases())("sessions on $name", (database) => {
  const fixture = useSyncFixture(database);
  const stops: (() => void)[] = [];

  afterEach(() => {
    for (const stop of stops.splice(0)) stop();
  });

  /** A session for `auth` fed by the sync's published batches, collecting its frames. */
  const session = (auth = alice) => {
    const { sync } = fixture();
    const { session: opened, frames, until, unsubscribe } = collectingSession(sync, auth);
    stops.push(unsubscribe);
    return {
      frames,
      subscribe: (frame: Omit<SubscribeFrame, "type">) =>
        opened.handle({ type: "subscribe", ...frame }),
      until,
    };
  };

  const insertTask = (title: string, assignee = alice) =>
    fixture().store.transaction(assignee, (db) =>
      db.insert("Task", { title, assigneeId: assignee.userId }),
    );

  it("resumes from since: the missed changes it may see, then live ones, none twice", async () => {
    const before = await insertTask("seen before");
    const since = await fixture().log.latestCursor();
    const missed = [await insertTask("missed 1"), await insertTask("missed 2")];
    await insertTask("bob's", bob);
    await fixture().store.transaction(alice, (db) =>
      db.update("Task", before.id, { assigneeId: "bob" }),
    );
    const client = session();
    client.subscribe({ id: "t", entity: "Task", since: String(since) });
    const live = await insertTask("live");
    const frames = await client.until(4);
    expect(frames).toMatchObject([
      { type: "change", id: "t", op: "insert", rowId: missed[0]?.id },
      { type: "change", op: "insert", rowId: missed[1]?.id },
      { type: "change", op: "remove", rowId: before.id },
      { type: "change", op: "insert", rowId: live.id },
    ]);
    const cursors = frames.map((frame) => Number((frame as { cursor: string }).cursor));
    expect(cursors).toEqual([...cursors].sort((a, b) => a - b));
    expect(new Set(cursors).size).toBe(4);
    // Nothing else is pending: a later write is the next frame.
    const last = await insertTask("last");
    expect((await client.until(5))[4]).toMatchObject({ rowId: last.id });
  });

  it("bounds the subscriptions one connection may hold", async () => {
    const client = session();
    for (let index = 0; index < MAX_SUBSCRIPTIONS; index += 1) {
      client.subscribe({ id: `s${index}`, entity: "Task" });
    }
    await client.until(MAX_SUBSCRIPTIONS);
    client.subscribe({ id: "one too many", entity: "Task" });
    const frames = await client.until(MAX_SUBSCRIPTIONS + 1);
    expect(frames[MAX_SUBSCRIPTIONS]).toMatchObject({
      type: "error",
      id: "one too many",
      error: { code: "TOO_MANY_SUBSCRIPTIONS" },
    });
  });

  it("resumes at the head with no frames until something changes", async () => {
    await insertTask("old");
    const client = session();
    client.subscribe({
      id: "t",
      entity: "Task",
      since: String(await fixture().log.latestCursor()),
    });
    const next = await insertTask("new");
    expect(await client.until(1)).toMatchObject([{ type: "change", rowId: next.id }]);
  });

  it.each([
    ["a cursor from the future", "999", "RESYNC_REQUIRED"],
    ["a malformed cursor", "-1", "INVALID_QUERY"],
  ])("answers %s with %s", async (_name, since, code) => {
    const client = session();
    client.subscribe({ id: "t", entity: "Task", since });
    expect(await client.until(1)).toMatchObject([{ type: "error", id: "t", error: { code } }]);
  });

  it("answers RESYNC_REQUIRED for a cursor pruned away or from before a reset", async () => {
    const { store, log } = fixture();
    await insertTask("a");
    await insertTask("b");
    await insertTask("c");
    fixture().clock += 8 * 24 * 60 * 60 * 1000;
    await insertTask("d");
    await log.prune();
    const pruned = session();
    pruned.subscribe({ id: "t", entity: "Task", since: "1" });
    expect(await pruned.until(1)).toMatchObject([{ error: { code: "RESYNC_REQUIRED" } }]);
    const cursor = await log.latestCursor();
    await store.truncateAll();
    const reset = session();
    reset.subscribe({ id: "t", entity: "Task", since: String(cursor) });
    expect(await reset.until(1)).toMatchObject([{ error: { code: "RESYNC_REQUIRED" } }]);
  });
});

describe.each(testDatabases())("the exists cache on $name", (database) => {
  const fixture = useSyncFixture(database);

  /** The store's system reader, counting the queries that reach it. */
  const countingReader = () => {
    const reader = fixture().store.systemReader();
    const counter = { queries: 0 };
    const counted: EntityReader = {
      get: (entity, id) => reader.get(entity, id),
      query: (entity, options) => {
        counter.queries += 1;
        return reader.query(entity, options);
      },
    };
    return { counted, counter };
  };

  const isMember = (resolve: ReturnType<typeof createExistsCache>["resolve"], userId: string) =>
    resolve("Member", [
      { field: "projectId", type: "string", value: "p1" },
      { field: "userId", type: "string", value: userId },
    ]);

  it("answers each lookup once until the looked-up entity changes", async () => {
    const { counted, counter } = countingReader();
    const cache = createExistsCache(counted);
    await fixture().store.transaction(adminAuth, (db) =>
      db.insert("Member", { projectId: "p1", userId: "alice" }),
    );
    // A thousand subscribers of two users: two queries.
    const answers = await Promise.all(
      Array.from({ length: 1000 }, (_, index) =>
        isMember(cache.resolve, index % 2 === 0 ? "alice" : "bob"),
      ),
    );
    expect(answers.filter(Boolean)).toHaveLength(500);
    expect(counter.queries).toBe(2);
    // A change to another entity keeps the answers.
    cache.invalidate(["Note"]);
    await isMember(cache.resolve, "bob");
    expect(counter.queries).toBe(2);
    // Bob joins: a change to Member drops them, and the next check sees it.
    await fixture().store.transaction(adminAuth, (db) =>
      db.insert("Member", { projectId: "p1", userId: "bob" }),
    );
    cache.invalidate(["Member"]);
    expect(await isMember(cache.resolve, "bob")).toBe(true);
    expect(counter.queries).toBe(3);
  });

  it("starts over past its bound, and never keeps a failed lookup", async () => {
    const { counted, counter } = countingReader();
    const cache = createExistsCache(counted, 2);
    for (const user of ["a", "b", "c"]) await isMember(cache.resolve, user);
    expect(cache.size).toBe(1);
    await isMember(cache.resolve, "c");
    expect(counter.queries).toBe(3);
    await expect(cache.resolve("Nope", [{ field: "x", type: "int", value: 1 }])).rejects.toThrow();
    expect(cache.size).toBe(1);
  });

  it("is what the sync's subscribers get, invalidated before they run", async () => {
    const { sync, store } = fixture();
    const carol = createAuthContext({ userId: "carol", via: "session" });
    const seen: boolean[] = [];
    const stop = sync.subscribe((changes, resolveExists) => {
      if (changes.some((change) => change.entity === "Member")) {
        void isMember(resolveExists, "carol").then((answer) => seen.push(answer));
      }
    });
    expect(await isMember(sync.existsResolver(), "carol")).toBe(false);
    await store.transaction(adminAuth, (db) =>
      db.insert("Member", { projectId: "p1", userId: carol.userId }),
    );
    await expect.poll(() => seen).toEqual([true]);
    stop();
  });
});
