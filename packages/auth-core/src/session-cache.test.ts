import { describe, expect, it } from "vitest";
import { SESSION_CACHE_TTL_MS, SessionCache } from "./session-cache.js";
import type { SessionRecord } from "./session-store.js";

function record(id: string, userId: string): SessionRecord {
  return {
    id,
    userId,
    isGuest: false,
    createdAt: 0,
    expiresAt: Number.MAX_SAFE_INTEGER,
    userAgent: null,
    ip: null,
    activeOrgId: null,
  };
}

describe("SessionCache", () => {
  it("answers within the TTL and forgets after it", () => {
    const cache = new SessionCache();
    cache.set("t1", record("s1", "u1"), 1000);
    expect(cache.get("t1", 1000 + SESSION_CACHE_TTL_MS - 1)?.id).toBe("s1");
    expect(cache.get("t1", 1000 + SESSION_CACHE_TTL_MS)).toBeUndefined();
    // An expired entry is gone, not only hidden.
    expect(cache.get("t1", 1000)).toBeUndefined();
  });

  it("drops a revoked session by id and every session of a user", () => {
    const cache = new SessionCache();
    cache.set("t1", record("s1", "u1"), 0);
    cache.set("t2", record("s2", "u1"), 0);
    cache.set("t3", record("s3", "u2"), 0);
    cache.forget("s1");
    expect(cache.get("t1", 0)).toBeUndefined();
    expect(cache.get("t2", 0)?.id).toBe("s2");
    cache.forgetUser("u1");
    expect(cache.get("t2", 0)).toBeUndefined();
    expect(cache.get("t3", 0)?.id).toBe("s3");
    cache.clear();
    expect(cache.get("t3", 0)).toBeUndefined();
  });

  it("distrusts an entry from the future (a clock that went back)", () => {
    const cache = new SessionCache();
    cache.set("t1", record("s1", "u1"), 5000);
    expect(cache.get("t1", 4000)).toBeUndefined();
  });

  it("evicts the least recently used entry when full", () => {
    const cache = new SessionCache();
    for (let i = 0; i < 10_000; i++) cache.set(`t${i}`, record(`s${i}`, "u"), 0);
    expect(cache.get("t0", 0)?.id).toBe("s0"); // t0 is now the most recent
    cache.set("new", record("snew", "u"), 0);
    expect(cache.get("t1", 0)).toBeUndefined();
    expect(cache.get("t0", 0)?.id).toBe("s0");
    expect(cache.get("new", 0)?.id).toBe("snew");
  });
});

describe("SessionCache stats", () => {
  it("counts hits, misses (absent or too old), invalidations, evictions and size", () => {
    const cache = new SessionCache();
    expect(cache.stats()).toEqual({ hits: 0, misses: 0, invalidations: 0, evictions: 0, size: 0 });
    expect(cache.get("t1", 0)).toBeUndefined();
    cache.set("t1", record("s1", "u1"), 0);
    cache.set("t2", record("s2", "u2"), 0);
    cache.get("t1", 1);
    cache.get("t1", 2);
    cache.get("t2", SESSION_CACHE_TTL_MS);
    expect(cache.stats()).toEqual({ hits: 2, misses: 2, invalidations: 0, evictions: 0, size: 1 });
    // Each forget counts once, whether or not it held an entry.
    cache.forget("s1");
    cache.forget("nobody");
    cache.forgetUser("u2");
    cache.clear();
    expect(cache.stats()).toMatchObject({ invalidations: 4, size: 0 });
    for (let i = 0; i <= 10_000; i++) cache.set(`t${i}`, record(`s${i}`, "u"), 0);
    expect(cache.stats()).toMatchObject({ evictions: 1, size: 10_000 });
  });
});
