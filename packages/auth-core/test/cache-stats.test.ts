import { describe, expect, it } from "vitest";
import type { AuthCacheStats, CacheStats } from "../src/index.js";
import { SESSION_CACHE_TTL_MS } from "../src/session-cache.js";
import { databases, expectAuthError, openAuthFixture } from "./fixture.js";

// The credential caches' counters (`auth.cacheStats()`), which the server
// turns into `svc_cache_*` metrics: hits, misses, invalidations here and,
// through the revocation journal, on another server.

/** `now` minus `before`, field by field (`size` as it is now). */
function since(before: AuthCacheStats, now: AuthCacheStats): AuthCacheStats {
  const diff = (a: CacheStats, b: CacheStats): CacheStats => ({
    hits: b.hits - a.hits,
    misses: b.misses - a.misses,
    invalidations: b.invalidations - a.invalidations,
    evictions: b.evictions - a.evictions,
    size: b.size,
  });
  return { session: diff(before.session, now.session), apiKey: diff(before.apiKey, now.apiKey) };
}

describe.each(databases)("credential cache stats on $name", (database) => {
  it("counts session and API key hits, misses and invalidations", async () => {
    await using f = await openAuthFixture(database);
    const alice = await f.signIn("alice@example.com");
    const start = f.auth.cacheStats();
    // Cached by the sign-in's own resolution: a hit, then too old: a miss.
    expect(await f.auth.resolveSession(alice.token)).not.toBeNull();
    f.clock.advance(SESSION_CACHE_TTL_MS);
    expect(await f.auth.resolveSession(alice.token)).not.toBeNull();
    const key = await f.auth.createApiKey(alice.context, { name: "k" });
    expect(await f.auth.resolveApiKey(key.key)).not.toBeNull();
    expect(await f.auth.resolveApiKey(key.key)).not.toBeNull();
    // Not an API key: no lookup at all.
    expect(await f.auth.resolveApiKey("svc_not_a_key")).toBeNull();
    expect(since(start, f.auth.cacheStats())).toEqual({
      session: { hits: 1, misses: 1, invalidations: 0, evictions: 0, size: 1 },
      apiKey: { hits: 1, misses: 1, invalidations: 0, evictions: 0, size: 1 },
    });

    await f.auth.revokeApiKey(alice.context, key.id);
    await expectAuthError(f.auth.resolveApiKey(key.key), "INVALID_API_KEY");
    await f.auth.revokeSession(alice.context);
    expect(await f.auth.resolveSession(alice.token)).toBeNull();
    expect(since(start, f.auth.cacheStats())).toEqual({
      session: { hits: 1, misses: 2, invalidations: 1, evictions: 0, size: 0 },
      apiKey: { hits: 1, misses: 2, invalidations: 1, evictions: 0, size: 0 },
    });
  });

  it("counts another server's revocation, read from the journal, as an invalidation", async () => {
    // On SQLite the other process shares the session file, as on one host.
    await using f = await openAuthFixture(database, { authFile: true });
    const other = await f.connect();
    try {
      const alice = await f.signIn("alice@example.com");
      expect(await other.auth.resolveSession(alice.token)).not.toBeNull();
      expect(await other.auth.resolveSession(alice.token)).not.toBeNull();
      const before = other.auth.cacheStats();
      expect(before.session).toMatchObject({ hits: 1, misses: 1, size: 1 });
      await f.auth.revokeAllSessions(alice.context);
      await expect
        .poll(() => other.auth.cacheStats().session.invalidations, { timeout: 5000 })
        .toBe(before.session.invalidations + 1);
      expect(other.auth.cacheStats().session.size).toBe(0);
      expect(other.auth.cacheStats().apiKey.invalidations).toBe(before.apiKey.invalidations + 1);
      expect(await other.auth.resolveSession(alice.token)).toBeNull();
    } finally {
      await other.auth.close();
      await other.close();
    }
  });
});
