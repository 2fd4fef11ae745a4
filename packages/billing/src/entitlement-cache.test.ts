import { describe, expect, it } from "vitest";
import { EntitlementCache } from "./entitlement-cache.js";

describe("EntitlementCache", () => {
  it("keeps a value for its TTL, drops it on clear, and evicts the oldest when full", async () => {
    let now = 0;
    let loads = 0;
    const cache = new EntitlementCache({ ttlMs: 100, maxEntries: 2, now: () => now });
    const load = (ids: string[]) => async () => {
      loads += 1;
      return ids;
    };
    expect(await cache.get("a", load(["p1"]))).toEqual(["p1"]);
    expect(await cache.get("a", load(["p2"]))).toEqual(["p1"]);
    expect(loads).toBe(1);
    now = 100;
    expect(await cache.get("a", load(["p2"]))).toEqual(["p2"]);
    cache.clear();
    expect(await cache.get("a", load(["p3"]))).toEqual(["p3"]);
    await cache.get("b", load([]));
    await cache.get("c", load([]));
    // "a" was the oldest: evicted, so it loads again.
    expect(await cache.get("a", load(["p4"]))).toEqual(["p4"]);
    expect(loads).toBe(6);
  });

  it("with a TTL of 0 reads every time", async () => {
    let loads = 0;
    const cache = new EntitlementCache({ ttlMs: 0, now: () => 0 });
    await cache.get("a", async () => [String(++loads)]);
    expect(await cache.get("a", async () => [String(++loads)])).toEqual(["2"]);
  });
});

describe("EntitlementCache stats", () => {
  it("counts hits, misses, invalidations, evictions and size", async () => {
    let now = 0;
    const cache = new EntitlementCache({ ttlMs: 100, maxEntries: 2, now: () => now });
    const load = async () => ["p"];
    expect(cache.stats()).toEqual({ hits: 0, misses: 0, invalidations: 0, evictions: 0, size: 0 });
    await cache.get("a", load);
    await cache.get("a", load);
    await cache.get("a", load);
    now = 100;
    await cache.get("a", load); // expired: a miss
    expect(cache.stats()).toEqual({ hits: 2, misses: 2, invalidations: 0, evictions: 0, size: 1 });
    // Each forget or clear counts once, whether or not it held the user.
    cache.forget("a");
    cache.forget("nobody");
    cache.clear();
    expect(cache.stats()).toMatchObject({ invalidations: 3, size: 0 });
    await cache.get("a", load);
    await cache.get("b", load);
    await cache.get("c", load);
    expect(cache.stats()).toMatchObject({ misses: 5, evictions: 1, size: 2 });
  });

  it("with a TTL of 0 every lookup is a miss and nothing is kept", async () => {
    const cache = new EntitlementCache({ ttlMs: 0, now: () => 0 });
    await cache.get("a", async () => []);
    await cache.get("a", async () => []);
    expect(cache.stats()).toEqual({ hits: 0, misses: 2, invalidations: 0, evictions: 0, size: 0 });
  });
});
