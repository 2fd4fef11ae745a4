import { adminAuth } from "@svc/schema";
import type { Store, StoreDatabase } from "@svc/store";
import { openPostgres } from "@svc/store/pg";
import { openSqlite } from "@svc/store/sqlite";
import { postgresTestDatabase, type TestDatabaseTarget } from "@svc/tooling/databases";
import { type Kysely, sql } from "kysely";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  ChangeFeedError,
  type ChangeLog,
  createChangeLog,
  createSync,
  type ListenOptions,
  type LoggedChange,
  reconnectDelay,
  syncMigrations,
} from "../src/index.js";
import { createPgFeed } from "../src/pg-feed.js";
import { committedTop, positionBounds, readPositioned } from "../src/pg-positions.js";
import type { SyncTables } from "../src/tables.js";
import { syncStore } from "./fixture.js";

// Several servers on one Postgres database: each log learns of the others'
// commits through LISTEN/NOTIFY and reads the log itself, so a subscriber
// on any server sees every committed entry once, in cursor order.

const postgres = postgresTestDatabase();

/** Polls `condition` every 10 ms until it holds; fails after `timeoutMs`. */
async function waitFor(condition: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** A scheduler the test can hold: while held, retries wait until `release()`. */
function heldScheduler() {
  const pending = new Set<() => void>();
  let held = false;
  return {
    pending,
    hold() {
      held = true;
    },
    release() {
      held = false;
      const runs = [...pending];
      pending.clear();
      for (const run of runs) run();
    },
    schedule(run: () => void, _delayMs: number): () => void {
      if (!held) {
        const timer = setTimeout(run, 0);
        return () => clearTimeout(timer);
      }
      pending.add(run);
      return () => pending.delete(run);
    },
  };
}

describe("change feed options", () => {
  it("throws LISTEN_REQUIRES_POSTGRES for SQLite and INVALID_CHANNEL for a bad channel", async () => {
    const sqlite = openSqlite(":memory:");
    try {
      expect(() =>
        createChangeLog({ ...sqlite, listen: { connectionString: "postgres://x" } }),
      ).toThrow(expect.objectContaining({ code: "LISTEN_REQUIRES_POSTGRES" }));
      for (const channel of ['x"; drop table t; --', "Upper", "1abc", "a".repeat(64), ""]) {
        expect(() =>
          createChangeLog({
            db: sqlite.db,
            dialect: "postgres",
            listen: { connectionString: "postgres://x", channel },
          }),
        ).toThrow(ChangeFeedError);
      }
    } finally {
      await sqlite.close();
    }
  });

  it("backs off exponentially up to the cap, jittered to 50-100%", () => {
    const retry = { initialDelayMs: 100, maxDelayMs: 1000 };
    expect([0, 1, 2, 3, 4, 10].map((n) => reconnectDelay(n, retry, () => 0.999999))).toEqual([
      100, 200, 400, 800, 1000, 1000,
    ]);
    expect(reconnectDelay(3, retry, () => 0)).toBe(400);
    expect(reconnectDelay(200, {}, () => 0.5)).toBe(7500);
  });
});

/** One "server": its own pool, change log and store on the shared schema. */
interface Server {
  readonly connection: StoreDatabase;
  readonly log: ChangeLog;
  readonly store: Store;
  readonly scheduler: ReturnType<typeof heldScheduler>;
  /** Cursors its subscriber got, in arrival order. */
  readonly received: number[];
  readonly resets: number[];
  readonly errors: unknown[];
}

type PostgresTarget = Extract<TestDatabaseTarget, { dialect: "postgres" }>;

/**
 * Servers on one fresh Postgres schema per test. `start` opens one: its own
 * pool, a change log listening under a held scheduler (the schema's URL unless
 * `listen` names another), a migrated store, and a subscriber recording what
 * arrives. After each test the servers still in `servers` are closed and the
 * schema is dropped.
 */
function usePostgresServers(presenceMs: number) {
  const database = postgres as NonNullable<typeof postgres>;
  const cluster = {
    target: undefined as unknown as PostgresTarget,
    servers: [] as Server[],
    async start(listen: Partial<ListenOptions> = {}): Promise<Server> {
      const connection = openPostgres(cluster.target.url, { max: 4 });
      const scheduler = heldScheduler();
      const errors: unknown[] = [];
      const log = createChangeLog({
        db: connection.db,
        dialect: connection.dialect,
        listen: {
          connectionString: cluster.target.url,
          schedule: scheduler.schedule,
          presenceMs,
          ...listen,
        },
        onError: (error) => errors.push(error),
      });
      const store = syncStore(connection, log);
      await store.migrate({ packages: [syncMigrations()] });
      const server: Server = {
        connection,
        log,
        store,
        scheduler,
        received: [],
        resets: [],
        errors,
      };
      log.subscribe((changes: readonly LoggedChange[]) => {
        server.received.push(...changes.map((change) => change.cursor));
      });
      log.onReset(() => server.resets.push(server.received.length));
      await log.ready();
      cluster.servers.push(server);
      return server;
    },
  };
  beforeEach(async () => {
    cluster.target = (await database.create()) as PostgresTarget;
  });
  afterEach(async () => {
    for (const server of cluster.servers) {
      await server.log.close();
      await server.connection.close();
    }
    cluster.servers = [];
    await database.destroy(cluster.target);
  });
  return cluster;
}

/** Commits `count` rows through `server`'s store. */
function insert(server: Server, count = 1): Promise<unknown> {
  return server.store.transaction(adminAuth, async (db) => {
    for (let i = 0; i < count; i += 1) await db.insert("Secret", { value: `v${i}` });
  });
}

/** Every payload notified on the servers' channel from now on, read by a plain client. */
async function watchChannel(url: string) {
  const { default: pg } = await import("pg");
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const channel = await client.query<{ name: string }>(
    "select 'svc_changes_' || substr(md5(current_schema()), 1, 8) as name",
  );
  const payloads: string[] = [];
  client.on("notification", (message) => payloads.push(message.payload ?? ""));
  await client.query(`LISTEN "${channel.rows[0]?.name}"`);
  return { payloads, close: () => client.end() };
}

describe.skipIf(postgres === undefined)("change feed across servers on Postgres", () => {
  // Peers are taken as gone after five presences: 500 ms here.
  const PRESENCE_MS = 100;
  const cluster = usePostgresServers(PRESENCE_MS);
  let a: Server;
  let b: Server;

  const named = (url: string, applicationName: string): string => {
    const parsed = new URL(url);
    parsed.searchParams.set("application_name", applicationName);
    return parsed.toString();
  };

  const startServer = (name: string): Promise<Server> =>
    cluster.start({ connectionString: named(cluster.target.url, name) });

  beforeEach(async () => {
    a = await startServer("svc_feed_a");
    b = await startServer("svc_feed_b");
  });

  const logged = async (): Promise<number[]> =>
    (await a.log.read(0, 10_000)).filter((entry) => entry.op !== "reset").map((e) => e.cursor);

  /** Commits a last write through `via` and waits until every server's subscriber has it. */
  const settle = async (via: Server = a): Promise<number> => {
    await insert(via);
    const last = await a.log.latestCursor();
    for (const server of cluster.servers) {
      await waitFor(() => server.received.includes(last), `cursor ${last} on every server`);
    }
    return last;
  };

  const listenerPids = async (applicationName: string): Promise<number[]> => {
    const result = await sql<{ pid: number }>`
      select pid from pg_stat_activity
      where application_name = ${applicationName}`.execute(a.connection.db);
    return result.rows.map((row) => row.pid);
  };

  const announcements = (payloads: readonly string[]): string[] =>
    payloads.filter((payload) => !payload.endsWith(":hello"));

  it("announces commits only while another server listens, and catches a newcomer up", async () => {
    const channel = await watchChannel(cluster.target.url);
    try {
      await settle(a);
      channel.payloads.length = 0;
      // B listens: A's commits are announced.
      for (let i = 0; i < 3; i += 1) await insert(a);
      const withPeer = await a.log.latestCursor();
      await waitFor(() => b.received.includes(withPeer), "B to get A's commits");
      await waitFor(() => announcements(channel.payloads).length > 0, "an announcement");
      // B goes away; once A has not heard from it for five presences, A
      // stops announcing (a plain listener like this one does not count).
      await b.log.close();
      cluster.servers = cluster.servers.filter((server) => server !== b);
      await new Promise((resolve) => setTimeout(resolve, PRESENCE_MS * 5 + 200));
      channel.payloads.length = 0;
      for (let i = 0; i < 5; i += 1) await insert(a);
      const alone = await a.log.latestCursor();
      await waitFor(() => a.received.includes(alone), "A to deliver its own commits");
      await new Promise((resolve) => setTimeout(resolve, PRESENCE_MS));
      expect(announcements(channel.payloads)).toEqual([]);
      // A newcomer says hello; A answers with its newest commit, and
      // announces again, so C gets a write of A's at once.
      const c = await startServer("svc_feed_c");
      await waitFor(() => announcements(channel.payloads).length > 0, "A to greet C");
      const started = performance.now();
      const next = await settle(a);
      expect(c.received).toContain(next);
      expect(performance.now() - started).toBeLessThan(PRESENCE_MS * 5);
    } finally {
      await channel.close();
    }
  });

  it("hands every server's subscriber each write from both stores once, in cursor order", async () => {
    // 50 transactions at once, half through each server, some with two rows.
    await Promise.all(
      Array.from({ length: 50 }, (_, i) => insert(i % 2 === 0 ? a : b, i % 5 === 0 ? 2 : 1)),
    );
    await settle(b);
    const all = await logged();
    expect(all).toHaveLength(61);
    expect(a.received).toEqual(all);
    expect(b.received).toEqual(all);
    expect([...all].sort((x, y) => x - y)).toEqual(all);
    expect(new Set(all).size).toBe(all.length);
    expect([...a.errors, ...b.errors]).toEqual([]);
    expect([...a.resets, ...b.resets]).toEqual([]);
  });

  it("never delivers a rolled-back write, and a skipped sequence value is no reset", async () => {
    const first = await settle();
    // Logged and notified inside the transaction, then rolled back.
    await expect(
      a.connection.db.transaction().execute(async (trx) => {
        await a.log.record(trx, [
          {
            entity: "Secret",
            op: "insert",
            id: "gone",
            row: { id: "gone", value: "gone" },
            previous: null,
          },
        ]);
        throw new Error("rolled back");
      }),
    ).rejects.toThrow("rolled back");
    const last = await settle();
    // The rollback used a sequence value: the two entries are not adjacent.
    expect(last).toBeGreaterThan(first + 1);
    expect(b.received).toEqual([first, last]);
    expect(a.received).toEqual([first, last]);
    expect([...a.resets, ...b.resets]).toEqual([]);
  });

  it("reconnects a terminated listener and catches up with no gap and no duplicate", async () => {
    b.scheduler.hold();
    const [pid] = await listenerPids("svc_feed_b");
    expect(pid).toBeTypeOf("number");
    // Mid-stream: writes from both servers keep going while B's listener dies.
    const writing = (async () => {
      for (let i = 0; i < 30; i += 1) await insert(i % 3 === 2 ? b : a);
    })();
    await waitFor(() => b.received.length >= 5, "the first writes on B");
    await sql`select pg_terminate_backend(${pid})`.execute(a.connection.db);
    await waitFor(
      () => b.errors.some((error) => (error as ChangeFeedError).code === "LISTENER_LOST"),
      "B to report its lost listener",
    );
    await writing;
    // B's own last write woke its tail, which read everything up to it.
    const caughtUp = await a.log.latestCursor();
    await waitFor(() => b.received.includes(caughtUp), "B's tail after its own write");
    // While B waits to reconnect, writes through A do not reach it.
    await insert(a, 3);
    const missed = (await logged()).slice(-3);
    expect(b.scheduler.pending.size).toBe(1);
    for (const cursor of missed) expect(b.received).not.toContain(cursor);
    b.scheduler.release();
    // Catching up is the reconnect's own doing: nothing else wakes B's tail.
    await waitFor(
      () => missed.every((cursor) => b.received.includes(cursor)),
      "B to catch up after reconnecting",
    );
    await settle();
    const all = await logged();
    expect(all).toHaveLength(30 + 3 + 1);
    expect(b.received).toEqual(all);
    expect(a.received).toEqual(all);
    const [reconnected] = await listenerPids("svc_feed_b");
    expect(reconnected).toBeTypeOf("number");
    expect(reconnected).not.toBe(pid);
  });

  it("tells the other server's reset listeners about a reset, once", async () => {
    await insert(a, 3);
    await settle(b);
    await a.store.truncateAll();
    await waitFor(
      () => b.resets.length === 1 && a.resets.length === 1,
      "the reset on both servers",
    );
    const before = b.received.length;
    const after = await settle(b);
    expect(b.received.slice(before)).toEqual([after]);
    expect(b.resets).toEqual([before]);
    expect(a.resets).toEqual([before]);
  });

  it("resyncs when entries were pruned before it read them", async () => {
    b.scheduler.hold();
    const [pid] = await listenerPids("svc_feed_b");
    await sql`select pg_terminate_backend(${pid})`.execute(a.connection.db);
    await waitFor(() => b.scheduler.pending.size === 1, "B to wait for its reconnect");
    await insert(a, 5);
    // Pruned by another server's retention before B read them.
    const pruning = createChangeLog({ ...a.connection, retention: { maxEntries: 1 } });
    expect(await pruning.prune()).toBe(4);
    b.scheduler.release();
    await waitFor(() => b.resets.length === 1, "B's resync");
    const last = await settle();
    expect(b.received).toEqual([last]);
  });

  it("close() ends the listener connection; nothing is delivered after it", async () => {
    expect(await listenerPids("svc_feed_b")).toHaveLength(1);
    await b.log.close();
    await b.log.close();
    expect(await listenerPids("svc_feed_b")).toEqual([]);
    await expect(b.log.ready()).rejects.toMatchObject({ code: "FEED_CLOSED" });
    const before = b.received.length;
    await insert(b);
    await insert(a);
    const last = await a.log.latestCursor();
    await waitFor(() => a.received.includes(last), "the writes on A");
    expect(b.received).toHaveLength(before);
  });

  it("rejects ready() when the listener cannot connect, retries, and stops on close()", async () => {
    const errors: unknown[] = [];
    const scheduler = heldScheduler();
    scheduler.hold();
    const log = createChangeLog({
      db: a.connection.db,
      dialect: "postgres",
      listen: {
        connectionString: "postgres://postgres@127.0.0.1:1/none",
        schedule: scheduler.schedule,
      },
      onError: (error) => errors.push(error),
    });
    await expect(log.ready()).rejects.toThrow();
    expect(errors).toHaveLength(1);
    expect(scheduler.pending.size).toBe(1);
    await log.close();
    expect(scheduler.pending.size).toBe(0);
  });
});

describe.skipIf(postgres === undefined)("following on demand on Postgres", () => {
  const PRESENCE_MS = 50;
  const cluster = usePostgresServers(PRESENCE_MS);

  // `listen.onDemand` with no idle delay: the last release pauses at once.
  const startServer = (): Promise<Server> => cluster.start({ onDemand: true, idleMs: 0 });

  const loggedAfter = async (server: Server, since: number): Promise<number[]> =>
    (await server.log.read(since, 10_000)).map((entry) => entry.cursor);

  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  it("a server with no consumer pauses: no hello, no announcement, nothing read of the others", async () => {
    const channel = await watchChannel(cluster.target.url);
    try {
      const p = await startServer();
      const q = await startServer();
      // Held once and released: following, then paused again.
      p.log.follow()();
      for (let i = 0; i < 3; i += 1) {
        await insert(p);
        await insert(q);
      }
      channel.payloads.length = 0;
      for (let i = 0; i < 3; i += 1) {
        await insert(p);
        await insert(q, 2);
      }
      await sleep(PRESENCE_MS * 4);
      // Neither greets nor announces (neither knows of a follower).
      expect(channel.payloads).toEqual([]);
      expect(p.received).toEqual([]);
      expect(q.received).toEqual([]);
      expect(await p.log.feedStatus()).toMatchObject({
        listening: true,
        paused: true,
        pendingEntries: 0,
        resumes: 1,
      });
      expect(p.log.following()).toBe(false);
      expect([...p.errors, ...q.errors]).toEqual([]);
    } finally {
      await channel.close();
    }
  });

  it("a consumer arriving resumes the tail: every later commit of another server once, in order", async () => {
    const channel = await watchChannel(cluster.target.url);
    try {
      const p = await startServer();
      const q = await startServer();
      await insert(q, 3);
      const release = p.log.follow();
      // Cursors read after `follow()` wait for the tail's new start point.
      const since = await p.log.latestCursor();
      expect(p.log.following()).toBe(true);
      await waitFor(
        () => channel.payloads.some((payload) => payload.endsWith(":hello")),
        "P's hello",
      );
      // Q, still paused, announces its commits to P and says it wants none.
      await Promise.all(Array.from({ length: 20 }, (_, i) => insert(q, i % 4 === 0 ? 2 : 1)));
      const all = await loggedAfter(q, since);
      expect(all).toHaveLength(25);
      const last = all[all.length - 1] ?? 0;
      await waitFor(() => p.received.includes(last), "P to get Q's commits");
      // Every commit after the reader's cursor, once and in order. The tail's
      // start may lie a little before that cursor (the horizon held back by
      // other transactions on a busy database), so it can also deliver some
      // of Q's three earlier commits first: subscribers skip those by cursor.
      expect(p.received.filter((cursor) => cursor > since)).toEqual(all);
      const earlier = p.received.filter((cursor) => cursor <= since);
      expect(earlier).toEqual(p.received.slice(0, earlier.length));
      expect(earlier.length).toBeLessThanOrEqual(3);
      expect(new Set(p.received).size).toBe(p.received.length);
      const hellos = channel.payloads.filter((payload) => payload.endsWith(":hello"));
      const pId = hellos[0]?.split(":")[0];
      expect(new Set(hellos.map((payload) => payload.split(":")[0]))).toEqual(new Set([pId]));
      const announced = channel.payloads.filter((payload) => !payload.endsWith(":hello"));
      expect(announced.length).toBeGreaterThan(0);
      for (const payload of announced) expect(payload).toMatch(/^[0-9a-z]+:\d+:quiet$/);
      // Q never follows: it got nothing of P's either.
      await insert(p);
      expect(q.received).toEqual([]);
      release();
      expect(await p.log.feedStatus()).toMatchObject({ paused: true });
      // P says bye: Q stops announcing to it at once, not five presences later.
      await waitFor(() => channel.payloads.includes(`${pId}:bye`), "P's bye");
      channel.payloads.length = 0;
      await insert(q, 2);
      await insert(p);
      await sleep(PRESENCE_MS * 2);
      expect(channel.payloads).toEqual([]);
      expect([...p.errors, ...q.errors]).toEqual([]);
      expect(p.resets).toEqual([]);
    } finally {
      await channel.close();
    }
  });

  it("settled() after follow() waits for the tail's new start point, however slow its read", async () => {
    const p = await startServer();
    const q = await startServer();
    const db = p.connection.db as unknown as Kysely<SyncTables>;
    // The tail's read of its start point waits for the test to open the gate.
    let open = (): void => undefined;
    const gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    const received: number[] = [];
    const feed = createPgFeed({
      db,
      listen: {
        connectionString: cluster.target.url,
        onDemand: true,
        idleMs: 0,
        presenceMs: PRESENCE_MS,
      },
      read: async (since, limit) =>
        (await readPositioned(db, since, limit)).map((row) => ({
          cursor: Number(row.pos),
          op: row.op,
        })),
      bounds: async () => {
        await gate;
        return positionBounds(db);
      },
      top: () => committedTop(db),
      deliver: (entries) => received.push(...entries.map((entry) => entry.cursor)),
      reset: () => undefined,
      onError: (error) => p.errors.push(error),
      now: Date.now,
    });
    try {
      await feed.ready();
      // Paused: nothing to wait for.
      await feed.settled();
      const latestBefore = (await positionBounds(db)).latest;
      const release = feed.follow();
      let settled = false;
      const settling = feed.settled().then(() => {
        settled = true;
      });
      // A commit while the start point is being read: it is in the tail's
      // start or after it, and a cursor read after `settled()` covers it.
      await insert(q);
      await sleep(PRESENCE_MS);
      expect(settled).toBe(false);
      expect(feed.following()).toBe(false);
      open();
      await settling;
      expect(feed.following()).toBe(true);
      // The start point is the newest position below the horizon when the
      // tail read it: not older than before follow(), not newer than now.
      // (The commit made during the read is in it unless the horizon still
      // held it back then, so the exact figure cannot be known afterwards.)
      const start = feed.status().delivered ?? -1;
      expect(start).toBeGreaterThanOrEqual(latestBefore);
      expect(start).toBeLessThanOrEqual((await positionBounds(db)).latest);
      await insert(q);
      const last = await committedTop(db);
      await waitFor(() => received.includes(last), "the commit after the start point");
      // Exactly what the log holds after the start point, once and in order:
      // the later commit, and the one made during the read when the horizon
      // held it back from the start (under load it can be).
      const after = (await readPositioned(db, start, 100)).map((row) => Number(row.pos));
      expect(after).toContain(last);
      expect(received).toEqual(after);
      release();
      expect(feed.status().paused).toBe(true);
    } finally {
      await feed.close();
    }
  });

  it("sync's exists cache is current only while following: bypassed while paused, dropped at pause and resume", async () => {
    const p = await startServer();
    const q = await startServer();
    const sync = createSync({ store: p.store, log: p.log });
    const lookup = [{ field: "value", type: "string", value: "fresh" }] as const;
    // Paused: a resolver of one use each time, reading the rows as they are.
    expect(sync.existsResolver()).not.toBe(sync.existsResolver());
    let release = p.log.follow();
    await p.log.latestCursor();
    const shared = sync.existsResolver();
    expect(sync.existsResolver()).toBe(shared);
    expect(await shared("Secret", lookup)).toBe(false);
    release();
    // Written while P does not follow: no change reaches P's cache.
    await q.store.transaction(adminAuth, (db) => db.insert("Secret", { value: "fresh" }));
    expect(await sync.existsResolver()("Secret", lookup)).toBe(true);
    release = p.log.follow();
    await p.log.latestCursor();
    await waitFor(() => p.log.following(), "P to follow again");
    // The answer cached before the pause is gone.
    expect(await sync.existsResolver()("Secret", lookup)).toBe(true);
    release();
  });

  it("a subscriber with a cursor taken before the pause catches up with no gap and no duplicate", async () => {
    const p = await startServer();
    const q = await startServer();
    let release = p.log.follow();
    const before = await p.log.latestCursor();
    await insert(q, 2);
    const seen = (await loggedAfter(q, before)).at(-1) ?? 0;
    await waitFor(() => p.received.includes(seen), "P to follow Q");
    release();
    // Paused: Q's commits are not read.
    await insert(q, 3);
    await Promise.all([insert(q), insert(p)]);
    await sleep(PRESENCE_MS * 2);
    const pausedAt = p.received.length;
    expect(p.received).toEqual(await loggedAfter(q, before).then((all) => all.slice(0, 2)));
    // A subscriber comes back with `before`: live delivery from the tail
    // (resumed), catch-up from the log as a session does, while Q writes.
    release = p.log.follow();
    const writing = (async () => {
      for (let i = 0; i < 15; i += 1) await insert(q);
    })();
    const caught: number[] = [];
    let position = before;
    for (;;) {
      const entries = await p.log.read(position, 4);
      const { oldest, latest } = await p.log.bounds();
      expect(position <= latest && (oldest === null || position >= oldest - 1)).toBe(true);
      const last = entries.at(-1);
      if (last === undefined) break;
      caught.push(...entries.map((entry) => entry.cursor));
      position = last.cursor;
    }
    await writing;
    await insert(q);
    const all = await loggedAfter(q, before);
    const newest = all.at(-1) ?? 0;
    await waitFor(() => p.received.includes(newest), "P to deliver Q's last commit");
    const live = p.received.slice(pausedAt).filter((cursor) => cursor > position);
    expect([...caught, ...live]).toEqual(all);
    expect(all).toHaveLength(2 + 3 + 2 + 15 + 1);
    release();
    expect([...p.errors, ...q.errors]).toEqual([]);
  });
});
