import { DatabaseRateLimitStore } from "@svc/auth-core/express";
import type { Options } from "express-rate-limit";
import { describe, expect, it } from "vitest";
import type { AuthDatabase } from "../src/index.js";
import { type AuthFixture, databases, START, useAuthFixture } from "./fixture.js";

// The express-rate-limit store on svc_rate_limits: fixed windows counted in
// the database, so every server (or worker) on one database shares them.

const WINDOW_MS = 60_000;
const KEY = "203.0.113.9";

function limiterOn(
  f: AuthFixture,
  database: AuthDatabase = f.database,
  prefix = "ip:",
): DatabaseRateLimitStore {
  const store = new DatabaseRateLimitStore(database, { prefix, now: f.clock.now });
  // express-rate-limit calls init with its full options; the store reads the window only.
  store.init({ windowMs: WINDOW_MS } as Options);
  return store;
}

describe.each(databases)("DatabaseRateLimitStore on $name", (database) => {
  const fixture = useAuthFixture(database, { authFile: true });

  it("counts hits within a window that ends windowMs after the first", async () => {
    const f = fixture();
    const limiter = limiterOn(f);
    expect(limiter.localKeys).toBe(false);
    expect(limiter.prefix).toBe("ip:");
    for (const expected of [1, 2, 3]) {
      f.clock.advance(1000);
      expect(await limiter.increment(KEY)).toEqual({
        totalHits: expected,
        resetTime: new Date(START + 1000 + WINDOW_MS),
      });
    }
  });

  it.each([
    { elapsed: WINDOW_MS - 1, totalHits: 3, resetAt: START + WINDOW_MS },
    { elapsed: WINDOW_MS, totalHits: 1, resetAt: START + 2 * WINDOW_MS },
    { elapsed: 10 * WINDOW_MS, totalHits: 1, resetAt: START + 11 * WINDOW_MS },
  ])(
    "$elapsed ms after the first of two hits the count is $totalHits",
    async ({ elapsed, totalHits, resetAt }) => {
      const f = fixture();
      const limiter = limiterOn(f);
      await limiter.increment(KEY);
      await limiter.increment(KEY);
      f.clock.advance(elapsed);
      expect(await limiter.increment(KEY)).toEqual({ totalHits, resetTime: new Date(resetAt) });
    },
  );

  it("takes its window from init", async () => {
    const f = fixture();
    const limiter = new DatabaseRateLimitStore(f.database, { prefix: "ip:", now: f.clock.now });
    limiter.init({ windowMs: 1000 } as Options);
    await limiter.increment(KEY);
    f.clock.advance(999);
    expect((await limiter.increment(KEY)).totalHits).toBe(2);
    f.clock.advance(1);
    expect(await limiter.increment(KEY)).toEqual({
      totalHits: 1,
      resetTime: new Date(START + 2000),
    });
  });

  it("decrement takes one hit back and never goes below zero", async () => {
    const f = fixture();
    const limiter = limiterOn(f);
    await limiter.decrement(KEY);
    for (let hit = 0; hit < 3; hit++) await limiter.increment(KEY);
    await limiter.decrement(KEY);
    expect((await limiter.increment(KEY)).totalHits).toBe(3);
    for (let taken = 0; taken < 5; taken++) await limiter.decrement(KEY);
    expect((await limiter.increment(KEY)).totalHits).toBe(1);
  });

  it("resetKey forgets the key's count, and only that key's", async () => {
    const f = fixture();
    const limiter = limiterOn(f);
    for (let hit = 0; hit < 3; hit++) {
      await limiter.increment(KEY);
      await limiter.increment("198.51.100.1");
    }
    await limiter.resetKey(KEY);
    expect(await limiter.increment(KEY)).toEqual({
      totalHits: 1,
      resetTime: new Date(START + WINDOW_MS),
    });
    expect((await limiter.increment("198.51.100.1")).totalHits).toBe(4);
  });

  it("get reads the window in force without counting, undefined once it ended", async () => {
    const f = fixture();
    const limiter = limiterOn(f);
    expect(await limiter.get(KEY)).toBeUndefined();
    await limiter.increment(KEY);
    await limiter.increment(KEY);
    const expected = { totalHits: 2, resetTime: new Date(START + WINDOW_MS) };
    expect(await limiter.get(KEY)).toEqual(expected);
    expect(await limiter.get(KEY)).toEqual(expected);
    f.clock.advance(WINDOW_MS);
    expect(await limiter.get(KEY)).toBeUndefined();
  });

  it("mark starts a fresh one-hit window, renewed by marking again", async () => {
    const f = fixture();
    const known = new DatabaseRateLimitStore(f.database, {
      prefix: "known:",
      now: f.clock.now,
      windowMs: 10_000,
    });
    await known.mark(KEY);
    expect(await known.get(KEY)).toEqual({ totalHits: 1, resetTime: new Date(START + 10_000) });
    f.clock.advance(9_000);
    await known.mark(KEY);
    f.clock.advance(9_000);
    expect(await known.get(KEY)).toEqual({ totalHits: 1, resetTime: new Date(START + 19_000) });
    f.clock.advance(1_000);
    expect(await known.get(KEY)).toBeUndefined();
  });

  it("keeps prefixes apart", async () => {
    const f = fixture();
    const perIp = limiterOn(f, f.database, "ip:");
    const perAccount = limiterOn(f, f.database, "account:");
    await perIp.increment("a@example.com");
    await perIp.increment("a@example.com");
    expect((await perAccount.increment("a@example.com")).totalHits).toBe(1);
    await perAccount.resetKey("a@example.com");
    expect((await perIp.increment("a@example.com")).totalHits).toBe(3);
  });

  it("two store instances share counters, also over two connections to the database", async () => {
    const f = fixture();
    const other = await f.connect();
    const first = limiterOn(f);
    const second = limiterOn(f);
    const elsewhere = limiterOn(f, other.database);
    expect((await first.increment(KEY)).totalHits).toBe(1);
    expect((await second.increment(KEY)).totalHits).toBe(2);
    expect((await elsewhere.increment(KEY)).totalHits).toBe(3);
    await elsewhere.decrement(KEY);
    expect((await first.increment(KEY)).totalHits).toBe(3);
    await second.resetKey(KEY);
    expect((await elsewhere.increment(KEY)).totalHits).toBe(1);
  });

  it("concurrent increments from two connections are all counted", async () => {
    const f = fixture();
    const other = await f.connect();
    const here = limiterOn(f);
    const there = limiterOn(f, other.database);
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, index) => (index % 2 === 0 ? here : there).increment(KEY)),
    );
    expect(results.map(({ totalHits }) => totalHits).sort((a, b) => a - b)).toEqual([
      1, 2, 3, 4, 5, 6, 7, 8, 9, 10,
    ]);
  });
});
