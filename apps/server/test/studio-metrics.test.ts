import { testDatabases } from "@svc/tooling/databases";
import { Histogram, Registry } from "prom-client";
import { beforeEach, describe, expect, it } from "vitest";
import {
  createMetricsHistory,
  histogramDelta,
  histogramQuantile,
  sampleOf,
} from "../src/studio/metrics-history.js";
import { type AuthTestServer, readJSON } from "./auth-fixtures.js";
import { ADMIN_TOKEN, adminRequest } from "./fixtures.js";
import { type StudioClient, studioPerTest, textOf } from "./studio-fixtures.js";

// The Metrics page: what /metrics counts (requests, errors, durations,
// commit sizes, live connections, fan-out, jobs, caches, the process),
// sampled from the registry into an in-memory history and drawn as SVG;
// and the series this adds to /metrics (live connections, jobs).

describe("the metrics history", () => {
  it("reduces the registry to samples, bounded, and reads quantiles from histogram deltas", async () => {
    const registry = new Registry();
    const duration = new Histogram({
      name: "svc_http_request_duration_seconds",
      help: "test",
      labelNames: ["route"] as const,
      buckets: [0.01, 0.1, 1],
      registers: [registry],
    });
    let clock = 0;
    const history = createMetricsHistory({ registry, samples: 3, intervalMs: 0, now: () => clock });
    await history.sample();
    for (const seconds of [0.005, 0.005, 0.05, 0.5]) duration.observe({ route: "/a" }, seconds);
    duration.observe({ route: "/b" }, 0.05);
    clock = 10_000;
    await history.sample();
    const [first, second] = history.samples();
    if (first === undefined || second === undefined) throw new Error("two samples expected");
    expect(second.duration.count).toBe(5);
    const delta = histogramDelta(second.duration, first.duration);
    expect(delta.buckets).toEqual([
      { le: 0.01, count: 2 },
      { le: 0.1, count: 4 },
      { le: 1, count: 5 },
      { le: Number.POSITIVE_INFINITY, count: 5 },
    ]);
    // The median (2.5 of 5) lies a quarter into the (0.01, 0.1] bucket.
    expect(histogramQuantile(delta, 0.5)).toBeCloseTo(0.0325, 6);
    expect(histogramQuantile(delta, 1)).toBe(1);
    expect(histogramQuantile({ buckets: [], sum: 0, count: 0 }, 0.5)).toBeNull();
    for (let n = 0; n < 5; n++) {
      clock += 10_000;
      await history.sample();
    }
    expect(history.samples().map((sample) => sample.at)).toEqual([40_000, 50_000, 60_000]);
    // Series the server does not report are null, not zero.
    expect(sampleOf([], 0)).toMatchObject({ liveConnections: null, jobs: null, feedEntries: null });
  });
});

describe.each(testDatabases())("the studio's Metrics page on $name", (database) => {
  const app = studioPerTest(database);
  let server: AuthTestServer;
  let studio: StudioClient;

  beforeEach(() => {
    ({ server, studio } = app);
  });

  /** Every sample of `/metrics` by its series (`name{labels}`). */
  async function scrape(): Promise<Map<string, number>> {
    const text = await (
      await fetch(`${server.url}/metrics`, { headers: { accept: "text/plain" } })
    ).text();
    const samples = new Map<string, number>();
    for (const line of text.split("\n")) {
      if (line === "" || line.startsWith("#")) continue;
      const space = line.lastIndexOf(" ");
      samples.set(line.slice(0, space), Number(line.slice(space + 1)));
    }
    return samples;
  }

  it("charts requests, errors, durations, commits, live connections, fan-out, jobs, caches, memory and CPU", async () => {
    server.clock.advance(10_000);
    // A live subscriber, a job that goes dead, writes, requests and errors.
    const stream = new AbortController();
    const events = await fetch(`${server.url}/events?entity=Note`, {
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
      signal: stream.signal,
    });
    expect(events.status).toBe(200);
    try {
      const scheduled = await readJSON<{ jobId: string }>(
        adminRequest(server, "POST", "/api/fn/scheduleRefused", {}),
      );
      expect(scheduled.status).toBe(200);
      await expect
        .poll(
          async () =>
            (
              await readJSON<{ status: string }>(
                adminRequest(server, "GET", `/api/admin/jobs/${scheduled.body.jobId}`),
              )
            ).body.status,
          { timeout: 10_000 },
        )
        .toBe("dead");
      for (let n = 0; n < 3; n++) {
        const written = await adminRequest(server, "POST", "/api/entities/Note", {
          title: `n${n}`,
          count: n,
          done: false,
          tag: "red",
          ownerId: "o",
        });
        expect(written.status).toBeLessThan(300);
      }
      await fetch(`${server.url}/nowhere`);

      const scraped = await scrape();
      expect(scraped.get("svc_live_connections")).toBe(1);
      expect(scraped.get('svc_jobs{status="dead"}')).toBe(1);
      expect(scraped.get('svc_jobs{status="pending"}')).toBe(0);
      expect(scraped.get('svc_job_runs_total{outcome="failed"}')).toBe(1);
      expect(scraped.get("svc_job_run_duration_seconds_count")).toBe(1);

      server.clock.advance(10_000);
      const page = await studio.get("/studio/metrics");
      expect(page.status).toBe(200);
      expect(page.html).toContain('<a href="/studio/metrics" aria-current="page">Metrics</a>');
      const figure = (key: string): string =>
        textOf(
          new RegExp(`<div class="figure" data-figure="${key}">([^<]*)</div>`).exec(
            page.html,
          )?.[1] ?? "",
        );
      for (const key of [
        "requests",
        "errors",
        "latency",
        "commits",
        "live",
        "fanout",
        "jobs",
        "caches",
        "memory",
        "cpu",
      ]) {
        expect(page.html, key).toMatch(
          new RegExp(`<section class="card" data-chart="${key}">[\\s\\S]*?<svg class="chart"`),
        );
      }
      expect(figure("requests")).toMatch(/^[\d.,]+\/s$/);
      expect(figure("live")).toBe("1");
      expect(figure("jobs")).toBe("0 pending · 1 dead");
      expect(figure("commits")).toBe("1 per transaction");
      expect(figure("fanout")).toMatch(/entries\/s$/);
      expect(figure("memory")).toMatch(/^[\d.,]+ MB$/);
      // Requests as bars; the rest need two points for a line, one step draws dots.
      expect(page.html).toMatch(/data-chart="requests">[\s\S]*?<rect class="fill-1"/);
      expect(page.html).not.toContain(ADMIN_TOKEN);
    } finally {
      stream.abort();
    }
  });
});
