import type { RequestHandler, Router } from "express";
import { type ChartSeries, chart, formatFigure, legend } from "./charts.js";
import { html, type SafeHTML } from "./html.js";
import {
  type HistogramState,
  histogramDelta,
  histogramQuantile,
  type MetricsHistory,
  type MetricsSample,
} from "./metrics-history.js";
import { sendStudioPage } from "./studio-http.js";
import type { StudioOptions } from "./studio-options.js";

/** A sample older than this is refreshed before the page is drawn. */
const FRESH_MS = 1000;

/** Two consecutive samples and the seconds between them. */
interface Step {
  readonly before: MetricsSample;
  readonly after: MetricsSample;
  readonly seconds: number;
}

function stepsOf(samples: readonly MetricsSample[]): Step[] {
  const steps: Step[] = [];
  for (let index = 1; index < samples.length; index++) {
    const before = samples[index - 1];
    const after = samples[index];
    if (before === undefined || after === undefined) continue;
    steps.push({ before, after, seconds: (after.at - before.at) / 1000 });
  }
  return steps;
}

/** A counter's rate per second over each step (null across a reset or a zero-length step). */
function rate(
  steps: readonly Step[],
  read: (sample: MetricsSample) => number | null,
): (number | null)[] {
  return steps.map(({ before, after, seconds }) => {
    const a = read(before);
    const b = read(after);
    if (a === null || b === null || seconds <= 0 || b < a) return null;
    return (b - a) / seconds;
  });
}

/** A histogram's figure (quantile or mean) over each step; null where nothing was observed. */
function perStep(
  steps: readonly Step[],
  read: (sample: MetricsSample) => HistogramState | null,
  figure: (delta: HistogramState) => number | null,
): (number | null)[] {
  return steps.map(({ before, after }) => {
    const a = read(before);
    const b = read(after);
    if (a === null || b === null) return null;
    const delta = histogramDelta(b, a);
    return delta.count > 0 ? figure(delta) : null;
  });
}

const mean = (delta: HistogramState): number | null =>
  delta.count > 0 ? delta.sum / delta.count : null;
const scaled = (values: readonly (number | null)[], factor: number): (number | null)[] =>
  values.map((value) => (value === null ? null : value * factor));
const lastOf = (values: readonly (number | null)[]): number | null => {
  for (let index = values.length - 1; index >= 0; index--) {
    const value = values[index];
    if (value !== null && value !== undefined) return value;
  }
  return null;
};

/** One card of the Metrics page: a headline figure over a chart of its series. */
interface CardSpec {
  readonly key: string;
  readonly title: string;
  readonly figure: string;
  readonly note?: string;
  readonly series: readonly ChartSeries[];
  readonly unit: string;
  readonly bars?: boolean;
}

function card(times: readonly number[], input: CardSpec): SafeHTML {
  return html`<section class="card" data-chart="${input.key}">
    <h2>${input.title}</h2>
    <div class="figure" data-figure="${input.key}">${input.figure}</div>
    ${input.note !== undefined && html`<small>${input.note}</small>`}
    ${legend(input.series)}
    ${chart({ title: input.title, times, series: input.series, unit: input.unit, bars: input.bars === true })}
  </section>`;
}

function figureText(value: number | null, unit: string): string {
  return value === null ? "-" : `${formatFigure(value)}${unit}`;
}

/** The latest value of a series as a headline figure. */
const latestText = (values: readonly (number | null)[], unit: string): string =>
  figureText(lastOf(values), unit);

/** The cards of the Metrics page, each a chart of one thing `/metrics` counts. */
function renderMetricsCards(samples: readonly MetricsSample[]): SafeHTML {
  const steps = stepsOf(samples);
  const times = steps.map((step) => step.after.at);
  const latest = samples.at(-1);
  const requests = rate(steps, (sample) => sample.requests);
  const clientErrors = rate(steps, (sample) => sample.clientErrors);
  const serverErrors = rate(steps, (sample) => sample.serverErrors);
  // A request-duration quantile in milliseconds.
  const durationMs = (quantile: number): (number | null)[] =>
    scaled(
      perStep(
        steps,
        (sample) => sample.duration,
        (delta) => histogramQuantile(delta, quantile),
      ),
      1000,
    );
  const p50 = durationMs(0.5);
  const p95 = durationMs(0.95);
  const perCommit = perStep(steps, (sample) => sample.commitTransactions, mean);
  const perTransaction = perStep(steps, (sample) => sample.transactionChanges, mean);
  const fanOut = rate(steps, (sample) => sample.feedEntries);
  const feedLag = scaled(
    perStep(steps, (sample) => sample.feedLag, mean),
    1000,
  );
  const live = steps.map((step) => step.after.liveConnections);
  const jobsSucceeded = scaled(
    rate(steps, (sample) => sample.jobRuns.succeeded),
    60,
  );
  const jobsFailed = scaled(
    rate(steps, (sample) => sample.jobRuns.failed),
    60,
  );
  const pending = steps.map((step) => step.after.jobs?.pending ?? null);
  const dead = steps.map((step) => step.after.jobs?.dead ?? null);
  const caches = Object.keys(latest?.cache ?? {}).sort();
  const hitRatio = (name: string): (number | null)[] =>
    steps.map(({ before, after }) => {
      const a = before.cache[name];
      const b = after.cache[name];
      if (a === undefined || b === undefined) return null;
      const hits = b.hit - a.hit;
      const total = hits + (b.miss - a.miss);
      return total > 0 && hits >= 0 ? (hits / total) * 100 : null;
    });
  const cpu = scaled(
    rate(steps, (sample) => sample.cpuSeconds),
    100,
  );
  const memory = steps.map((step) =>
    step.after.residentBytes === null ? null : step.after.residentBytes / (1024 * 1024),
  );
  const lag = steps.map((step) =>
    step.after.eventLoopLagSeconds === null ? null : step.after.eventLoopLagSeconds * 1000,
  );
  const sqlite =
    latest?.commitTransactions !== null &&
    latest?.commitTransactions !== undefined &&
    latest.commitTransactions.count > 0;

  const cards: CardSpec[] = [
    {
      key: "requests",
      title: "Requests",
      figure: latestText(requests, "/s"),
      unit: "/s",
      bars: true,
      series: [{ label: "requests per second", values: requests }],
    },
    {
      key: "errors",
      title: "Errors",
      figure: latestText(serverErrors, " 5xx/s"),
      unit: "/s",
      series: [
        { label: "5xx per second", values: serverErrors },
        { label: "4xx per second", values: clientErrors },
      ],
    },
    {
      key: "latency",
      title: "Request duration",
      figure: latestText(p95, " ms p95"),
      note: "From the histogram's buckets: the quantiles are estimates.",
      unit: " ms",
      series: [
        { label: "p50", values: p50 },
        { label: "p95", values: p95 },
      ],
    },
    {
      key: "commits",
      title: "Commit sizes",
      figure: latestText(perTransaction, " per transaction"),
      note: sqlite
        ? "SQLite shares one commit among concurrent writes (group commit)."
        : "On Postgres every transaction is its own commit.",
      unit: "",
      series: [
        { label: "changes per write transaction", values: perTransaction },
        ...(sqlite ? [{ label: "transactions per commit", values: perCommit }] : []),
      ],
    },
    {
      key: "live",
      title: "Live connections",
      figure: figureText(latest?.liveConnections ?? null, ""),
      note: "WebSocket, SSE and room sockets on this server.",
      unit: "",
      series: [{ label: "open connections", values: live }],
    },
    {
      key: "fanout",
      title: "Fan-out",
      figure: latestText(fanOut, " entries/s"),
      note: "Change log entries handed to live subscribers, and their lag.",
      unit: "",
      series: [
        { label: "entries per second", values: fanOut },
        { label: "feed lag (ms)", values: feedLag },
      ],
    },
    {
      key: "jobs",
      title: "Jobs",
      figure: `${figureText(latest?.jobs?.pending ?? null, " pending")} · ${figureText(latest?.jobs?.dead ?? null, " dead")}`,
      note: "Runs on this server's worker per minute; pending and dead jobs in the shared queue.",
      unit: "",
      series: [
        { label: "succeeded / min", values: jobsSucceeded },
        { label: "failed / min", values: jobsFailed },
        { label: "pending", values: pending },
        { label: "dead", values: dead },
      ],
    },
    {
      key: "caches",
      title: "Cache hits",
      figure:
        caches.length === 0
          ? "-"
          : caches.map((name) => `${name} ${latestText(hitRatio(name), "%")}`).join(" · "),
      note: "Share of lookups answered from memory.",
      unit: "%",
      series: caches.slice(0, 4).map((name) => ({ label: name, values: hitRatio(name) })),
    },
    {
      key: "memory",
      title: "Memory",
      figure: latestText(memory, " MB"),
      note: "The process's resident memory.",
      unit: " MB",
      series: [{ label: "resident memory (MB)", values: memory }],
    },
    {
      key: "cpu",
      title: "CPU and event loop",
      figure: `${latestText(cpu, "% CPU")} · ${latestText(lag, " ms lag")}`,
      note: "CPU time of the process, and the event loop's delay (p99).",
      unit: "",
      series: [
        { label: "CPU (%)", values: cpu },
        { label: "event loop p99 (ms)", values: lag },
      ],
    },
  ];
  return html`<div class="cards">
    ${cards.map((spec) => card(times, spec))}
  </div>`;
}

/**
 * The Metrics page: charts of what `/metrics` counts, from the history of
 * samples of the server's registry (`MetricsHistory`), with a fresh sample
 * taken when the last one is over a second old.
 */
export function registerMetricsPages(
  router: Router,
  options: StudioOptions,
  signedIn: readonly RequestHandler[],
): void {
  const history: MetricsHistory | undefined = options.metricsHistory;
  const now = options.now ?? Date.now;
  const noHistory = html`<p class="hint">This server keeps no metrics history for the studio.</p>`;
  const metricsBody = async (history: MetricsHistory): Promise<SafeHTML> => {
    const last = history.samples().at(-1);
    if (last === undefined || now() - last.at >= FRESH_MS) await history.sample();
    const samples = history.samples();
    const span =
      samples.length < 2 ? 0 : ((samples.at(-1)?.at ?? 0) - (samples[0]?.at ?? 0)) / 60_000;
    return html`<p class="muted">What <code>/metrics</code> counts on this server, sampled every ${history.intervalMs / 1000} s and kept in memory for the last ${formatFigure((history.intervalMs * history.capacity) / 60_000)} minutes (${samples.length} samples over ${formatFigure(span)} minutes now); a restart starts over. Rates are per second between two samples. For long-term graphs and alerts, scrape <code>/metrics</code> with Prometheus.</p>
        ${renderMetricsCards(samples)}`;
  };

  router.get("/studio/metrics", ...signedIn, async (_req, res) => {
    const body = history === undefined ? noHistory : await metricsBody(history);
    sendStudioPage(res, { title: "Metrics", section: "Metrics", body });
  });
}
