import { adminAuth } from "@svc/schema";
import { dialectFor } from "@svc/store";
import { openPostgres } from "@svc/store/pg";
import {
  postgresTestDatabase,
  type TestDatabaseTarget,
  testDatabases,
} from "@svc/tooling/databases";
import { sql } from "kysely";
import { describe, expect, it } from "vitest";
import {
  type ChangeLogObserver,
  createChangeLog,
  type FeedDelivery,
  syncMigrations,
} from "../src/index.js";
import { syncStore, useSyncFixture } from "./fixture.js";

// The change log's metrics hooks: transaction sizes, deliveries with their
// lag, public reads' horizon waits, and where the cross-server tail stands.

/** An observer that keeps every call. */
function recorder() {
  const calls = {
    published: [] as number[],
    delivered: [] as FeedDelivery[],
    horizonWaits: [] as number[],
  };
  const observer: ChangeLogObserver = {
    onPublish: (changes) => calls.published.push(changes),
    onDelivery: (delivery) => calls.delivered.push(delivery),
    onHorizonWait: (waitedMs) => calls.horizonWaits.push(waitedMs),
  };
  return { calls, observer };
}

/** Polls `condition` every 10 ms until it holds; fails after `timeoutMs`. */
async function waitFor(
  condition: () => boolean | Promise<boolean>,
  what: string,
  timeoutMs = 10_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe.each(testDatabases())("change log observer on $name", (database) => {
  const { calls, observer } = recorder();
  const fixture = useSyncFixture(database, { observer });

  it("counts changes per committed transaction and hands them over with no lag", async () => {
    calls.published.length = 0;
    calls.delivered.length = 0;
    calls.horizonWaits.length = 0;
    const f = fixture();
    await f.store.transaction(adminAuth, async (db) => {
      await db.insert("Secret", { value: "a" });
      await db.insert("Secret", { value: "b" });
      await db.insert("Task", { title: "t", assigneeId: "alice" });
    });
    await f.store.transaction(adminAuth, (db) => db.insert("Secret", { value: "c" }));
    // A rolled-back write is neither published nor delivered.
    await expect(
      f.store.transaction(adminAuth, async (db) => {
        await db.insert("Secret", { value: "gone" });
        throw new Error("rolled back");
      }),
    ).rejects.toThrow("rolled back");
    expect(calls.published).toEqual([3, 1]);
    expect(calls.delivered).toEqual([
      { entries: 3, lagMs: 0 },
      { entries: 1, lagMs: 0 },
    ]);
    // Without `listen` there is no tail to report on.
    expect(await f.log.feedStatus()).toBeNull();
    await f.log.read(0, 10);
    await f.log.latestCursor();
    if (dialectFor(database.name).concurrentWriters) {
      // One wait per public read, 0 unless another transaction was open.
      expect(calls.horizonWaits).toHaveLength(2);
      for (const waited of calls.horizonWaits) expect(waited).toBeGreaterThanOrEqual(0);
    } else {
      expect(calls.horizonWaits).toEqual([]);
    }
  });

  it("reports a throwing observer and still commits and delivers", async () => {
    const f = fixture();
    const reported: unknown[] = [];
    const log = createChangeLog({
      db: f.connection.db,
      dialect: f.connection.dialect,
      onListenerError: (error) => reported.push(error),
      observer: {
        onPublish: () => {
          throw new Error("publish hook");
        },
        onDelivery: () => {
          throw new Error("delivery hook");
        },
      },
    });
    const store = syncStore(f.connection, log);
    const received: number[] = [];
    log.subscribe((changes) => received.push(...changes.map((change) => change.cursor)));
    await store.transaction(adminAuth, (db) => db.insert("Secret", { value: "x" }));
    expect(received).toEqual([await log.latestCursor()]);
    expect(reported.map((error) => (error as Error).message)).toEqual([
      "publish hook",
      "delivery hook",
    ]);
  });
});

const postgres = postgresTestDatabase();

describe.skipIf(postgres === undefined)("cross-server feed metrics on Postgres", () => {
  const database = postgres as NonNullable<typeof postgres>;

  it("shows how long and by how many entries an open transaction holds the tail back, then the lag", async () => {
    const target = (await database.create()) as Extract<
      TestDatabaseTarget,
      { dialect: "postgres" }
    >;
    const writer = openPostgres(target.url, { max: 4 });
    const holder = openPostgres(target.url, { max: 1 });
    let clock = Date.UTC(2026, 10, 25);
    const { calls, observer } = recorder();
    const log = createChangeLog({
      db: writer.db,
      dialect: "postgres",
      now: () => clock,
      listen: { connectionString: target.url },
      onError: () => undefined,
      observer,
    });
    // Listening with nothing held back or waiting: before the test holds a
    // transaction open and once it lets go.
    const caughtUp = { listening: true, heldMs: 0, pendingEntries: 0, paused: false, resumes: 0 };
    let release = (): void => undefined;
    let holding: Promise<void> | undefined;
    try {
      const store = syncStore(writer, log);
      await store.migrate({ packages: [syncMigrations()] });
      const received: number[] = [];
      log.subscribe((changes) => received.push(...changes.map((change) => change.cursor)));
      await log.ready();
      expect(await log.feedStatus()).toEqual(caughtUp);

      // An older transaction with an id of its own stays open while a
      // newer one commits: the tail may not pass it.
      const released = new Promise<void>((resolve) => {
        release = resolve;
      });
      let began = (): void => undefined;
      const begun = new Promise<void>((resolve) => {
        began = resolve;
      });
      holding = holder.db.transaction().execute(async (trx) => {
        await sql`select pg_current_xact_id()`.execute(trx);
        began();
        await released;
      });
      await begun;
      await store.transaction(adminAuth, async (db) => {
        await db.insert("Secret", { value: "a" });
        await db.insert("Secret", { value: "b" });
      });
      const written = clock;
      // The clock moves only here, so the held time is whole steps of it.
      await waitFor(async () => {
        clock += 1000;
        return ((await log.feedStatus())?.heldMs ?? 0) > 0;
      }, "the tail to be held back");
      const held = await log.feedStatus();
      expect(held).toMatchObject({ listening: true, pendingEntries: 2 });
      expect(held?.heldMs).toBeGreaterThanOrEqual(1000);
      expect(held?.heldMs).toBeLessThan(clock - written + 1);
      expect(received).toEqual([]);

      clock += 2500;
      release();
      await holding;
      await waitFor(() => received.length === 2, "the held entries");
      expect(calls.published).toEqual([2]);
      expect(calls.delivered).toEqual([{ entries: 2, lagMs: clock - written }]);
      expect(await log.feedStatus()).toEqual(caughtUp);
    } finally {
      release();
      await holding?.catch(() => undefined);
      await log.close();
      await holder.close();
      await writer.close();
      await database.destroy(target);
    }
  });
});
