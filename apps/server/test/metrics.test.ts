import { dialectFor } from "@svc/store";
import { testDatabases } from "@svc/tooling/databases";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type AuthTestServer,
  createTestDatabase,
  post,
  registerPassword,
  request,
  startAuthServer,
} from "./auth-fixtures.js";
import { ADMIN_TOKEN, databaseEnv, tempDir } from "./fixtures.js";

/** The `svc_http_requests_total` lines of `/metrics` for one status. */
async function requestLines(server: { url: string }, status: number): Promise<string[]> {
  const response = await fetch(`${server.url}/metrics`, { headers: { accept: "text/plain" } });
  const text = await response.text();
  return text
    .split("\n")
    .filter(
      (line) => line.startsWith("svc_http_requests_total{") && line.includes(`status="${status}"`),
    );
}

describe("/metrics route labels", () => {
  const dir = tempDir();
  let server: AuthTestServer;

  beforeAll(async () => {
    server = await startAuthServer({ SVC_RATE_LIMIT: "off", SVC_DB_PATH: `${dir.path}/app.db` });
  });
  afterAll(async () => {
    await server?.[Symbol.asyncDispose]();
    dir[Symbol.dispose]();
  });

  // Regression (issue 21): studio pages answered by the studio's error
  // handler (the sign-in form at /studio, a 401 on a deeper page) were
  // counted as `/studio/studio/...`: the label added `req.baseUrl`, which
  // that path-scoped handler had set, to the route's full path.
  it("labels studio pages answered by its error handler with their route template", async () => {
    expect((await fetch(`${server.url}/studio`)).status).toBe(200);
    expect((await fetch(`${server.url}/studio/entities/Todo`)).status).toBe(401);
    const ok = await requestLines(server, 200);
    const refused = await requestLines(server, 401);
    expect(ok.some((line) => line.includes('route="/studio"'))).toBe(true);
    expect(refused.some((line) => line.includes('route="/studio/entities/:entity"'))).toBe(true);
    expect([...ok, ...refused].filter((line) => line.includes("/studio/studio"))).toEqual([]);
  });

  it("labels a route answered by an app-level error with its template", async () => {
    const response = await fetch(`${server.url}/api/fn/nope`, { method: "POST", body: "{}" });
    expect(response.status).toBe(404);
    const lines = await requestLines(server, 404);
    expect(lines.some((line) => line.includes('route="/api/fn/:name"'))).toBe(true);
  });
});

/** Every sample of `/metrics` by its series (`name{labels}`). */
async function scrape(server: { url: string }): Promise<Map<string, number>> {
  const response = await fetch(`${server.url}/metrics`, { headers: { accept: "text/plain" } });
  expect(response.status).toBe(200);
  const samples = new Map<string, number>();
  for (const line of (await response.text()).split("\n")) {
    if (line === "" || line.startsWith("#")) continue;
    const space = line.lastIndexOf(" ");
    samples.set(line.slice(0, space), Number(line.slice(space + 1)));
  }
  return samples;
}

/** How much each series grew from `before` to `after` (a series missing before counts from 0). */
function growth(before: Map<string, number>, after: Map<string, number>, series: string): number {
  const now = after.get(series);
  if (now === undefined) throw new Error(`${series} is not on /metrics`);
  return now - (before.get(series) ?? 0);
}

const SESSION_HIT = 'svc_cache_requests_total{cache="session",result="hit"}';
const SESSION_INVALIDATED = 'svc_cache_invalidations_total{cache="session"}';
const FEED_ENTRIES = "svc_sync_feed_entries_total";
const FEED_LAG_COUNT = "svc_sync_feed_lag_seconds_count";

/**
 * An open `/events` stream (a live client): on Postgres the server follows
 * the other servers' commits only while it has one. Resolves once the
 * stream's first event (the snapshot) arrived; `close` ends it.
 */
async function openLiveClient(server: { url: string }): Promise<{ close(): void }> {
  const abort = new AbortController();
  const response = await fetch(`${server.url}/events?entity=List`, {
    headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    signal: abort.signal,
  });
  expect(response.status).toBe(200);
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let text = "";
  while (!text.includes("snapshot")) {
    const { value, done } = await reader.read();
    if (done) throw new Error("the live stream ended before its snapshot");
    text += decoder.decode(value, { stream: true });
  }
  return {
    close() {
      abort.abort();
      reader.cancel().catch(() => undefined);
    },
  };
}

// Issue 22: what scale-out adds is on /metrics. A write moves the
// transaction-size histogram and the feed (on Postgres: on the other
// server too, through the shared log), a repeated request is a session
// cache hit, and a sign-out is an invalidation (on Postgres: on the other
// server too, through the revocation journal).
describe.each(testDatabases())("/metrics for scale-out on $name", (database) => {
  it("moves the write, feed, cache and invalidation series", async () => {
    await using db = await createTestDatabase(database);
    // Billing on (no processor call is made): callers' entitlements are cached too.
    const env = {
      ...databaseEnv(db.target),
      SVC_RATE_LIMIT: "off",
      SVC_PAYMENT_API_KEY: "sk_test_metrics",
    };
    await using a = await startAuthServer(env);
    const concurrentWriters = dialectFor(database.name).concurrentWriters;
    // On Postgres a second server shares the database.
    await using b = concurrentWriters ? await startAuthServer(env) : undefined;
    const alice = await registerPassword(a, "alice@example.com");
    for (const server of b === undefined ? [a] : [a, b]) {
      for (let i = 0; i < 2; i++) {
        expect((await request(server, "GET", "/api/auth/me", { token: alice.token })).status).toBe(
          200,
        );
      }
    }
    if (concurrentWriters) {
      // No live client yet: neither server reads the other's commits.
      for (const server of [a, b]) {
        expect((await scrape(server as AuthTestServer)).get("svc_sync_feed_paused")).toBe(1);
      }
    }
    // A live client on each server: on Postgres, both follow from now on.
    const clients = [
      await openLiveClient(a),
      ...(b === undefined ? [] : [await openLiveClient(b)]),
    ];
    const before = await scrape(a);
    const beforeB = b === undefined ? undefined : await scrape(b);

    const written = await post(a, "/api/entities/List", { title: "one" }, { token: ADMIN_TOKEN });
    expect(written.status).toBeLessThan(300);
    expect((await request(a, "GET", "/api/auth/me", { token: alice.token })).status).toBe(200);
    const pulled = await request(a, "GET", "/api/sync/pull?since=0", { token: ADMIN_TOKEN });
    expect(pulled.status).toBe(200);
    expect((await request(a, "DELETE", "/api/auth/session", { token: alice.token })).status).toBe(
      200,
    );

    // On Postgres the tail delivers the write after reading the log.
    await expect.poll(async () => growth(before, await scrape(a), FEED_ENTRIES)).toBeGreaterThan(0);
    const after = await scrape(a);
    expect(growth(before, after, "svc_store_transaction_changes_count")).toBeGreaterThanOrEqual(1);
    expect(growth(before, after, "svc_store_transaction_changes_sum")).toBeGreaterThanOrEqual(1);
    expect(growth(before, after, FEED_LAG_COUNT)).toBeGreaterThanOrEqual(1);
    expect(growth(before, after, SESSION_HIT)).toBeGreaterThanOrEqual(1);
    expect(growth(before, after, SESSION_INVALIDATED)).toBeGreaterThanOrEqual(1);
    expect(
      growth(before, after, 'svc_cache_requests_total{cache="entitlements",result="hit"}'),
    ).toBeGreaterThanOrEqual(1);
    expect(after.get('svc_cache_requests_total{cache="api_key",result="miss"}')).toBe(0);
    expect(after.get('svc_cache_entries{cache="session"}')).toBe(0);
    if (concurrentWriters) {
      expect(growth(before, after, "svc_sync_horizon_wait_seconds_count")).toBeGreaterThanOrEqual(
        1,
      );
      expect(after.get("svc_sync_feed_listening")).toBe(1);
      expect(after.get("svc_sync_feed_held_seconds")).toBeGreaterThanOrEqual(0);
      expect(after.get("svc_sync_feed_pending_entries")).toBeGreaterThanOrEqual(0);
      expect(after.get("svc_sync_feed_paused")).toBe(0);
      expect(after.get("svc_sync_feed_resumes_total")).toBe(1);
    } else {
      expect(growth(before, after, "svc_store_commit_transactions_count")).toBeGreaterThanOrEqual(
        1,
      );
      // No cross-server tail on SQLite.
      expect(after.has("svc_sync_feed_listening")).toBe(false);
    }

    if (b !== undefined && beforeB !== undefined) {
      // The other server delivers A's write from the log, and drops
      // Alice's cached session when it reads A's sign-out from the journal.
      await expect
        .poll(async () => {
          const now = await scrape(b);
          return Math.min(
            growth(beforeB, now, FEED_ENTRIES),
            growth(beforeB, now, FEED_LAG_COUNT),
            growth(beforeB, now, SESSION_INVALIDATED),
          );
        })
        .toBeGreaterThan(0);
      expect((await request(b, "GET", "/api/auth/me", { token: alice.token })).status).toBe(401);
    }
    for (const client of clients) client.close();
    if (b !== undefined) {
      // The last live client gone, the tail pauses again (after a second).
      await expect
        .poll(async () => (await scrape(b)).get("svc_sync_feed_paused"), { timeout: 5000 })
        .toBe(1);
    }
  });
});
