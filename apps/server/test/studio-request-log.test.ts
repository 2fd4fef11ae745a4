import { describe, expect, it } from "vitest";
import type { AccessLogEntry } from "../src/logging/access-log.js";
import { chart, formatFigure, niceCeiling } from "../src/studio/charts.js";
import { bucketRequests, createRequestLog, percentile } from "../src/studio/request-log.js";

// The Logs page's store: a ring bounded by its capacity (it can never
// grow, nor touch the disk), newest first, filtered in memory; and the
// chart arithmetic (buckets, percentiles, axes).

function entry(overrides: Partial<AccessLogEntry> = {}): AccessLogEntry {
  return {
    requestId: "req",
    method: "GET",
    route: "/api/entities/:entity",
    status: 200,
    durationMs: 1,
    caller: "session",
    bytes: 10,
    ...overrides,
  };
}

describe("createRequestLog", () => {
  it("keeps at most its capacity, newest first, each with its time and a sequence number", () => {
    let clock = 1000;
    const log = createRequestLog({ capacity: 10, now: () => clock });
    for (let n = 1; n <= 25; n++) {
      clock += 1;
      log.record(entry({ requestId: `r${n}` }));
    }
    expect(log.size).toBe(10);
    const all = log.query();
    expect(all.map((item) => item.requestId)).toEqual(
      Array.from({ length: 10 }, (_, index) => `r${25 - index}`),
    );
    expect(all[0]).toMatchObject({ seq: 25, at: 1025, aborted: false });
    expect(all.at(-1)).toMatchObject({ seq: 16, at: 1016 });
  });

  it("filters by status class, route, caller, time, page and the studio's own routes", () => {
    let clock = 0;
    const log = createRequestLog({ capacity: 100, now: () => clock });
    log.record(entry({ status: 200, route: "/api/fn/:name", caller: "admin" }));
    clock = 10;
    log.record(entry({ status: 404, route: "unmatched", caller: "anonymous" }));
    clock = 20;
    log.record(entry({ status: 503, route: "/api/fn/:name", caller: "session", aborted: true }));
    log.record(entry({ status: 200, route: "/studio/logs", caller: "none" }));
    const routes = (filter: Parameters<typeof log.query>[0]) =>
      log.query(filter).map((item) => `${item.status} ${item.route}`);
    expect(routes({ statusClass: 5 })).toEqual(["503 /api/fn/:name"]);
    expect(routes({ route: "/api/fn/:name" })).toEqual(["503 /api/fn/:name", "200 /api/fn/:name"]);
    expect(routes({ caller: "anonymous" })).toEqual(["404 unmatched"]);
    expect(routes({ since: 10, withoutStudio: true })).toEqual([
      "503 /api/fn/:name",
      "404 unmatched",
    ]);
    expect(routes({ before: 3 })).toEqual(["404 unmatched", "200 /api/fn/:name"]);
    expect(log.query({ statusClass: 5 })[0]?.aborted).toBe(true);
    expect(log.routes()).toEqual(["/api/fn/:name", "/studio/logs", "unmatched"]);
  });

  it("records nothing with capacity 0", () => {
    const log = createRequestLog({ capacity: 0 });
    log.record(entry());
    expect(log.size).toBe(0);
    expect(log.query()).toEqual([]);
  });
});

describe("the Logs page's arithmetic", () => {
  it("takes nearest-rank percentiles", () => {
    expect(percentile([], 0.5)).toBeNull();
    expect(percentile([7], 0.95)).toBe(7);
    const hundred = Array.from({ length: 100 }, (_, index) => index + 1);
    expect(percentile(hundred, 0.5)).toBe(50);
    expect(percentile(hundred, 0.95)).toBe(95);
  });

  it("buckets requests by time with their errors and latency", () => {
    let clock = 0;
    const log = createRequestLog({ now: () => clock });
    for (const [at, durationMs, status] of [
      [0, 10, 200],
      [30_000, 30, 500],
      [59_999, 20, 200],
      [60_000, 5, 200],
      [180_000, 1, 200],
    ] as const) {
      clock = at;
      log.record(entry({ durationMs, status }));
    }
    const buckets = bucketRequests(log.query(), { end: 180_000, bucketMs: 60_000, count: 3 });
    expect(buckets).toEqual([
      { start: 0, requests: 3, errors: 1, p50: 20, p95: 30 },
      { start: 60_000, requests: 1, errors: 0, p50: 5, p95: 5 },
      // The request at 180 000 is past the end.
      { start: 120_000, requests: 0, errors: 0, p50: null, p95: null },
    ]);
  });

  it("draws an SVG chart with a round axis, gaps for missing values and escaped labels", () => {
    expect(niceCeiling(0)).toBe(1);
    expect(niceCeiling(7)).toBe(10);
    expect(niceCeiling(180)).toBe(200);
    expect(niceCeiling(2.2)).toBe(2.5);
    expect(formatFigure(1234)).toBe("1,234");
    expect(formatFigure(12_345)).toBe("12.3k");
    expect(formatFigure(0.5)).toBe("0.5");
    const svg = chart({
      title: `<script>alert(1)</script>`,
      times: [0, 60_000, 120_000, 180_000],
      series: [
        { label: "p50", values: [1, 2, null, 4] },
        { label: "p95", values: [3, null, null, null] },
      ],
      unit: " ms",
    }).toString();
    expect(svg).toMatch(/^<svg class="chart" viewBox="0 0 640 170" role="img"/);
    expect(svg).not.toContain("<script>");
    expect(svg).toContain("&lt;script&gt;");
    // One line for the first run, a dot for each lone value.
    expect(svg.match(/<polyline/g)).toHaveLength(1);
    expect(svg.match(/<circle/g)).toHaveLength(2);
    expect(svg).toContain(">5 ms</text>");
    expect(chart({ title: "none", times: [], series: [] }).toString()).toContain("No data yet");
  });
});
