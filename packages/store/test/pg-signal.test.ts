import { postgresTestDatabase } from "@svc/tooling/databases";
import pg from "pg";
import { afterEach, describe, expect, it } from "vitest";
import { createPgSignal, type PgSignal } from "../src/pg.js";

const postgres = postgresTestDatabase();

/** Resolves once `count` rings have been heard, or rejects after `ms`. */
function rings(signal: PgSignal, count: number, ms = 2_000): Promise<number> {
  return new Promise((resolve, reject) => {
    let heard = 0;
    const timer = setTimeout(() => {
      stop();
      reject(new Error(`heard ${heard} of ${count} rings`));
    }, ms);
    const stop = signal.onRing(() => {
      heard += 1;
      if (heard < count) return;
      clearTimeout(timer);
      stop();
      resolve(heard);
    });
  });
}

async function waitUntil(check: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe.skipIf(postgres === undefined)("createPgSignal on Postgres", () => {
  const open: PgSignal[] = [];
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    await Promise.all(open.splice(0).map((signal) => signal.close()));
    await Promise.all(cleanups.splice(0).map((cleanup) => cleanup()));
  });

  const schemaURL = async (): Promise<string> => {
    const target = await (postgres as NonNullable<typeof postgres>).create();
    cleanups.push(() => (postgres as NonNullable<typeof postgres>).destroy(target));
    const { url } = target as { url?: string };
    if (url === undefined) throw new Error("expected a Postgres target");
    return url;
  };

  const signalOn = (url: string, channel = "svc_test_bell"): PgSignal => {
    const signal = createPgSignal({ connectionString: url, channel, reconnectMs: 20 });
    open.push(signal);
    return signal;
  };

  it("rings the other processes on the same schema, not itself, not another schema", async () => {
    const url = await schemaURL();
    const ringer = signalOn(url);
    const hearer = signalOn(url);
    const elsewhere = signalOn(await schemaURL());
    let own = 0;
    let other = 0;
    // The first ring of each is its own connection coming up.
    await rings(ringer, 1);
    await rings(hearer, 1);
    await rings(elsewhere, 1);
    ringer.onRing(() => {
      own += 1;
    });
    elsewhere.onRing(() => {
      other += 1;
    });
    const heard = rings(hearer, 3);
    await ringer.ring();
    await ringer.ring();
    await ringer.ring();
    expect(await heard).toBe(3);
    // A ring the ringer itself heard would have arrived before the hearer's.
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(own).toBe(0);
    expect(other).toBe(0);
  });

  it("reconnects after its connection is killed and rings its listeners then", async () => {
    const url = await schemaURL();
    const errors: unknown[] = [];
    const hearer = createPgSignal({
      connectionString: url,
      channel: "svc_test_bell",
      reconnectMs: 20,
      onError: (error) => errors.push(error),
    });
    open.push(hearer);
    const ringer = signalOn(url);
    await rings(hearer, 1);
    await rings(ringer, 1);
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    try {
      const again = rings(hearer, 1, 5_000);
      await admin.query(
        "select pg_terminate_backend(pid) from pg_stat_activity where query like 'LISTEN \"svc_test_bell_%' and pid <> pg_backend_pid()",
      );
      // The ring after the reconnection: anything missed meanwhile is read then.
      expect(await again).toBe(1);
      expect(errors.length).toBeGreaterThan(0);
      await waitUntil(() => hearer.connected(), "the hearer to be back");
      await waitUntil(() => ringer.connected(), "the ringer to be back");
      const heard = rings(hearer, 1);
      await ringer.ring();
      expect(await heard).toBe(1);
    } finally {
      await admin.end();
    }
  });

  it("refuses a channel that is not a plain identifier", () => {
    expect(() => createPgSignal({ connectionString: "postgres://x", channel: 'a"; drop' })).toThrow(
      /channel must match/,
    );
  });

  it("closes: no reconnection, no listener called", async () => {
    const url = await schemaURL();
    const signal = signalOn(url);
    await rings(signal, 1);
    await signal.close();
    expect(signal.connected()).toBe(false);
    await expect(signal.ring()).rejects.toThrow(/closed/);
  });
});
