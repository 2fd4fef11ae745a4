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
