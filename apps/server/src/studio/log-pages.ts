import type { RequestHandler, Router } from "express";
import type { CallerKind } from "../logging/access-log.js";
import { badge, countText, timeCell } from "./cells.js";
import { chart, formatFigure, legend } from "./charts.js";
import { renderTable, toolbar } from "./data-table.js";
import { html, type SafeHTML } from "./html.js";
import { studioURL } from "./layout.js";
import {
  bucketRequests,
  percentile,
  type RequestLog,
  type RequestLogEntry,
  type RequestLogFilter,
} from "./request-log.js";
import { StudioError } from "./studio-errors.js";
import { queryParam, sendStudioPage } from "./studio-http.js";
import type { StudioOptions } from "./studio-options.js";

const PAGE_SIZE = 100;

/** Every caller kind the access log names (a filter's choices). */
const CALLER_KINDS: Readonly<Record<CallerKind, string>> = {
  admin: "admin token",
  session: "session",
  guest: "guest",
  "api-key": "API key",
  jwt: "JWT",
  anonymous: "anonymous",
  rejected: "rejected credentials",
  none: "none (pages)",
};

/** The time windows a page can show, with the width of a chart's bucket in each. */
const WINDOWS: Readonly<
  Record<string, { readonly label: string; readonly ms: number; readonly bucketMs: number }>
> = {
  "5m": { label: "last 5 minutes", ms: 5 * 60_000, bucketMs: 10_000 },
  "15m": { label: "last 15 minutes", ms: 15 * 60_000, bucketMs: 30_000 },
  "1h": { label: "last hour", ms: 60 * 60_000, bucketMs: 60_000 },
  "6h": { label: "last 6 hours", ms: 6 * 60 * 60_000, bucketMs: 5 * 60_000 },
  "24h": { label: "last 24 hours", ms: 24 * 60 * 60_000, bucketMs: 20 * 60_000 },
};
const DEFAULT_WINDOW = "1h";

const STATUS_CLASSES = { "2xx": 2, "3xx": 3, "4xx": 4, "5xx": 5 } as const;

/** The page's filters, read from the query string; anything else is `400 INVALID_FORM`. */
interface LogQuery {
  readonly status: keyof typeof STATUS_CLASSES | undefined;
  readonly route: string | undefined;
  readonly caller: CallerKind | undefined;
  readonly window: string;
  readonly studio: boolean;
  readonly before: number | undefined;
}

function oneOf<T extends string>(
  name: string,
  value: string | undefined,
  allowed: readonly T[],
): T | undefined {
  if (value === undefined) return undefined;
  if (!(allowed as readonly string[]).includes(value)) {
    throw new StudioError(
      "INVALID_FORM",
      `The parameter ${name} must be one of ${allowed.join(", ")}.`,
    );
  }
  return value as T;
}

function readQuery(req: Parameters<RequestHandler>[0]): LogQuery {
  const before = queryParam(req, "before", 16);
  if (before !== undefined && !/^[1-9]\d{0,15}$/.test(before)) {
    throw new StudioError("INVALID_FORM", "The parameter before must be a positive whole number.");
  }
  return {
    status: oneOf(
      "status",
      queryParam(req, "status", 8),
      Object.keys(STATUS_CLASSES) as (keyof typeof STATUS_CLASSES)[],
    ),
    route: queryParam(req, "route", 512),
    caller: oneOf(
      "caller",
      queryParam(req, "caller", 16),
      Object.keys(CALLER_KINDS) as CallerKind[],
    ),
    window: oneOf("window", queryParam(req, "window", 8), Object.keys(WINDOWS)) ?? DEFAULT_WINDOW,
    studio: oneOf("studio", queryParam(req, "studio", 8), ["1"]) === "1",
    before: before === undefined ? undefined : Number(before),
  };
}

/** The query as URL parameters (empty ones left out by `studioURL`). */
function paramsOf(query: LogQuery): Record<string, string | undefined> {
  return {
    status: query.status,
    route: query.route,
    caller: query.caller,
    window: query.window === DEFAULT_WINDOW ? undefined : query.window,
    studio: query.studio ? "1" : undefined,
  };
}

function filterForm(query: LogQuery, routes: readonly string[]): SafeHTML {
  const routeChoices =
    query.route !== undefined && !routes.includes(query.route) ? [...routes, query.route] : routes;
  return html`<form class="filter" method="get" action="${studioURL(["logs"])}">
    <label>Status <select name="status">
      <option value="">(any)</option>
      ${Object.keys(STATUS_CLASSES).map((value) => html`<option value="${value}" ${value === query.status && "selected"}>${value}</option>`)}
    </select></label>
    <label>Route <select name="route">
      <option value="">(any)</option>
      ${routeChoices.map((value) => html`<option value="${value}" ${value === query.route && "selected"}>${value}</option>`)}
    </select></label>
    <label>Caller <select name="caller">
      <option value="">(any)</option>
      ${Object.entries(CALLER_KINDS).map(([value, label]) => html`<option value="${value}" ${value === query.caller && "selected"}>${label}</option>`)}
    </select></label>
    <label>Time <select name="window">
      ${Object.entries(WINDOWS).map(([value, window]) => html`<option value="${value}" ${value === query.window && "selected"}>${window.label}</option>`)}
    </select></label>
    <label class="check"><span>Studio pages</span><select name="studio">
      <option value="">hidden</option>
      <option value="1" ${query.studio && "selected"}>shown</option>
    </select></label>
    <button type="submit">Filter</button>
    <a href="${studioURL(["logs"])}">Clear</a>
  </form>`;
}

function stats(entries: readonly RequestLogEntry[], windowMs: number): SafeHTML {
  const sorted = entries.map((entry) => entry.durationMs).sort((a, b) => a - b);
  const errors = entries.filter((entry) => entry.status >= 500).length;
  const clientErrors = entries.filter((entry) => entry.status >= 400 && entry.status < 500).length;
  const figure = (value: number | null, unit: string): string =>
    value === null ? "-" : `${formatFigure(value)} ${unit}`;
  return html`<div class="stats">
    <div><small>requests</small><strong data-stat="requests">${entries.length.toLocaleString("en-US")}</strong></div>
    <div><small>per minute</small><strong data-stat="rate">${formatFigure(entries.length / (windowMs / 60_000))}</strong></div>
    <div><small>5xx</small><strong data-stat="errors">${errors.toLocaleString("en-US")}</strong></div>
    <div><small>4xx</small><strong data-stat="client-errors">${clientErrors.toLocaleString("en-US")}</strong></div>
    <div><small>p50</small><strong data-stat="p50">${figure(percentile(sorted, 0.5), "ms")}</strong></div>
    <div><small>p95</small><strong data-stat="p95">${figure(percentile(sorted, 0.95), "ms")}</strong></div>
  </div>`;
}

function charts(
  entries: readonly RequestLogEntry[],
  window: { ms: number; bucketMs: number },
  end: number,
): SafeHTML {
  const count = Math.round(window.ms / window.bucketMs);
  // Buckets end at the next whole bucket after now, so they do not shift with every reload.
  const last = (Math.floor(end / window.bucketMs) + 1) * window.bucketMs;
  const buckets = bucketRequests(entries, { end: last, bucketMs: window.bucketMs, count });
  const times = buckets.map((bucket) => bucket.start);
  const perMinute = 60_000 / window.bucketMs;
  const requests = [
    { label: "requests per minute", values: buckets.map((bucket) => bucket.requests * perMinute) },
    { label: "5xx per minute", values: buckets.map((bucket) => bucket.errors * perMinute) },
  ];
  const latency = [
    { label: "p50", values: buckets.map((bucket) => bucket.p50) },
    { label: "p95", values: buckets.map((bucket) => bucket.p95) },
  ];
  return html`<div class="cards">
    <section class="card" data-chart="requests"><h2>Requests per minute</h2>${legend(requests)}${chart({ title: "Requests per minute", times, series: requests, unit: "/min", bars: true })}</section>
    <section class="card" data-chart="latency"><h2>Latency</h2>${legend(latency)}${chart({ title: "Latency p50 and p95 in milliseconds", times, series: latency, unit: " ms" })}</section>
  </div>`;
}

function statusBadge(status: number): SafeHTML {
  return badge(String(status), `${Math.floor(status / 100)}xx`);
}

/**
 * The Logs page: this server's last requests from the in-memory ring the
 * access log feeds (`RequestLog`), filtered by status class, route
 * template, caller kind and time window, with requests per minute and the
 * p50 / p95 latency as charts, then the requests newest first.
 */
export function registerLogPages(
  router: Router,
  options: StudioOptions,
  signedIn: readonly RequestHandler[],
): void {
  const log: RequestLog | undefined = options.requestLog;
  const now = options.now ?? Date.now;

  router.get("/studio/logs", ...signedIn, (req, res) => {
    const query = readQuery(req);
    if (log === undefined || log.capacity === 0) {
      sendStudioPage(res, {
        title: "Logs",
        section: "Logs",
        body: html`<p class="hint">The request log is off on this server (<code>SVC_STUDIO_LOG_ENTRIES=0</code>). The access log still goes to the server's output (<code>SVC_ACCESS_LOG</code>).</p>`,
      });
      return;
    }
    const window = WINDOWS[query.window] ?? { label: "", ms: 60 * 60_000, bucketMs: 60_000 };
    const current = now();
    const filter: RequestLogFilter = {
      statusClass: query.status === undefined ? undefined : STATUS_CLASSES[query.status],
      route: query.route,
      caller: query.caller,
      since: current - window.ms,
      withoutStudio: !query.studio,
    };
    const inWindow = log.query(filter);
    const page = (
      query.before === undefined
        ? inWindow
        : inWindow.filter((entry) => entry.seq < (query.before ?? 0))
    ).slice(0, PAGE_SIZE);
    const last = page.at(-1);
    const older = last !== undefined && inWindow.some((entry) => entry.seq < last.seq);
    const table = renderTable<RequestLogEntry>({
      columns: [
        { key: "at", label: "time", className: "nowrap", cell: (entry) => timeCell(entry.at) },
        { key: "method", label: "method", cell: (entry) => html`<code>${entry.method}</code>` },
        { key: "route", label: "route", cell: (entry) => html`<code>${entry.route}</code>` },
        {
          key: "status",
          label: "status",
          cell: (entry) =>
            html`${statusBadge(entry.status)}${entry.aborted && html` <small>aborted</small>`}`,
        },
        {
          key: "duration",
          label: "duration",
          className: "num",
          cell: (entry) => `${formatFigure(entry.durationMs)} ms`,
        },
        {
          key: "caller",
          label: "caller",
          className: "nowrap",
          cell: (entry) => CALLER_KINDS[entry.caller],
        },
        {
          key: "bytes",
          label: "bytes",
          className: "num",
          cell: (entry) => entry.bytes.toLocaleString("en-US"),
        },
        {
          key: "requestId",
          label: "request id",
          className: "nowrap",
          cell: (entry) => html`<code>${entry.requestId}</code>`,
        },
      ],
      rows: page,
      rowId: (entry) => String(entry.seq),
      empty: html`<p class="hint">No request matches in the ${window.label}.</p>`,
    });
    sendStudioPage(res, {
      title: "Logs",
      section: "Logs",
      body: html`<p class="muted">This server's last ${log.capacity.toLocaleString("en-US")} requests at most, kept in memory (${log.size.toLocaleString("en-US")} now): another server has its own, and a restart empties it. Each is its access log line: the route template, never the path, query string, headers or body.</p>
        ${filterForm(query, log.routes())}
        ${stats(inWindow, window.ms)}
        ${charts(inWindow, window, current)}
        ${toolbar({
          total: `${countText(inWindow.length, Number.POSITIVE_INFINITY, "request")} in the ${window.label}`,
          actions: html`<a class="button" href="${studioURL(["logs"], paramsOf(query))}">Refresh</a>`,
        })}
        ${table}
        <nav class="pager">
          ${query.before !== undefined && html`<a href="${studioURL(["logs"], paramsOf(query))}">Newest</a>`}
          ${older && last !== undefined && html`<a href="${studioURL(["logs"], { ...paramsOf(query), before: String(last.seq) })}" rel="next">Older</a>`}
        </nav>`,
    });
  });
}
