import { formatInt, formatMs, formatRatio, table } from "../report-format.js";
import type { SpreadResult } from "./spread-load.js";
import type { WaitEventSummary } from "./wait-events.js";

/** The goals of issue #22: one server against bare pg, more servers against one. */
export const TARGET_VS_BARE = 0.6;
export const TARGET_VS_ONE_SERVER = 0.9;

/** One measured case of `bench:scale`, or why it could not be measured. */
export interface ScaleOutcome {
  /** `P` for the bare pg baseline, `S<n>` for svc on n servers, `N<n>` for n servers behind nginx. */
  readonly id: string;
  readonly label: string;
  /** Server processes under load (the baseline: 1). */
  readonly servers: number;
  /** True when the whole load went through nginx (`N<n>`). */
  readonly proxied?: boolean;
  readonly result?: SpreadResult;
  /** CPU time (user + system) of all server processes per request, in microseconds. */
  readonly serverMicrosPerRequest?: number;
  /** CPU time of the nginx process per request, in microseconds (`N<n>` only). */
  readonly proxyMicrosPerRequest?: number;
  /** CPU time of the case's Postgres backends per request, in microseconds (local server only). */
  readonly postgresMicrosPerRequest?: number;
  /** The part of `serverMicrosPerRequest` spent on the servers' main threads (where JavaScript runs). */
  readonly mainThreadMicrosPerRequest?: number;
  /** CPU time of the load generator (the bench process) per request, in microseconds. */
  readonly loadGeneratorMicrosPerRequest?: number;
  /** Servers, Postgres, nginx and load generator CPU over what every core could give in the run. */
  readonly machineBusyShare?: number;
  readonly waits?: WaitEventSummary;
  /** The same servers again at a fixed rate below saturation (`BENCH_SCALE_RATE`). */
  readonly atFixedRate?: FixedRateOutcome;
  readonly failure?: string;
}

/** A case's servers driven at a fixed request rate, with idle CPU left on the machine. */
export interface FixedRateOutcome {
  /** The rate asked for, in all. */
  readonly targetPerSecond: number;
  /** What the servers answered, in all. */
  readonly requestsPerSecond: number;
  readonly serverMicrosPerRequest?: number;
  readonly mainThreadMicrosPerRequest?: number;
  readonly machineBusyShare?: number;
}

export type ScaleVerdict = "met" | "MISSED" | "n/a";

function formatMicros(value: number | undefined): string {
  return value === undefined ? "-" : value.toFixed(1);
}

/** req/s of `outcome` over req/s of `base`. */
export function ratioByRequests(
  outcome: ScaleOutcome,
  base: ScaleOutcome | undefined,
): number | undefined {
  const top = outcome.result?.requestsPerSecond;
  const bottom = base?.result?.requestsPerSecond;
  return top === undefined || bottom === undefined || bottom === 0 ? undefined : top / bottom;
}

/** Server CPU per request of `base` over that of `outcome`: above 1 when `outcome` costs less. */
export function ratioByCpu(
  outcome: ScaleOutcome,
  base: ScaleOutcome | undefined,
): number | undefined {
  const own = outcome.serverMicrosPerRequest;
  const theirs = base?.serverMicrosPerRequest;
  return own === undefined || theirs === undefined || own === 0 ? undefined : theirs / own;
}

/** What the case is held to: the baseline for one server, the one-server case for more. */
export function targetOf(
  outcome: ScaleOutcome,
  outcomes: readonly ScaleOutcome[],
): { base: ScaleOutcome | undefined; ratio: number } | undefined {
  if (!outcome.id.startsWith("S")) return undefined;
  return outcome.servers === 1
    ? { base: outcomes.find((o) => o.id === "P"), ratio: TARGET_VS_BARE }
    : { base: outcomes.find((o) => o.id === "S1"), ratio: TARGET_VS_ONE_SERVER };
}

/** Whether an svc case reached its goal by req/s. */
export function scaleVerdict(
  outcome: ScaleOutcome,
  outcomes: readonly ScaleOutcome[],
): ScaleVerdict {
  const target = targetOf(outcome, outcomes);
  if (target === undefined) return "n/a";
  const value = ratioByRequests(outcome, target.base);
  if (value === undefined) return "n/a";
  return value >= target.ratio ? "met" : "MISSED";
}

function waitLines(outcome: ScaleOutcome): string[] {
  const waits = outcome.waits;
  if (waits === undefined) return [];
  const rows: string[][] = [["state", "wait event", "connections", "share"]];
  for (const share of waits.shares) {
    rows.push([
      share.state === "" ? "(none)" : share.state,
      share.wait === "-" ? "- (running)" : share.wait,
      share.meanConnections.toFixed(2),
      waits.meanConnections === 0
        ? "-"
        : `${Math.round((share.meanConnections / waits.meanConnections) * 100)}%`,
    ]);
  }
  return [
    `${outcome.id} ${outcome.label}: ${waits.samples} samples, ` +
      `${waits.meanConnections.toFixed(1)} connections on average`,
    ...table(rows, new Set([2, 3]))
      .split("\n")
      .map((line) => `  ${line}`),
  ];
}

/** The bare baseline on `count` processes: `P`, `P2`, `P3`, ... */
function bareOn(outcomes: readonly ScaleOutcome[], count: number): ScaleOutcome | undefined {
  return outcomes.find((o) => o.id === (count === 1 ? "P" : `P${count}`));
}

/** CPU per request of `outcome` over that of `base`: 1.00x when flat. */
export function cpuGrowth(
  outcome: ScaleOutcome | undefined,
  base: ScaleOutcome | undefined,
): number | undefined {
  const own = outcome?.serverMicrosPerRequest;
  const first = base?.serverMicrosPerRequest;
  return own === undefined || first === undefined || first === 0 ? undefined : own / first;
}

/**
 * One row per process count with both a bare and an svc case: their server
 * CPU per request, how much each grew against one process, and svc's growth
 * divided by the baseline's (1.00x: the extra servers cost svc nothing the
 * machine does not already charge a bare server).
 */
export function cpuGrowthRows(outcomes: readonly ScaleOutcome[]): string[][] {
  const rows: string[][] = [
    ["processes", "bare us/req", "bare growth", "svc us/req", "svc growth", "svc over bare"],
  ];
  for (const svc of outcomes) {
    if (!svc.id.startsWith("S")) continue;
    const bare = bareOn(outcomes, svc.servers);
    if (bare?.serverMicrosPerRequest === undefined || svc.serverMicrosPerRequest === undefined) {
      continue;
    }
    const bareGrowth = cpuGrowth(bare, bareOn(outcomes, 1));
    const svcGrowth = cpuGrowth(
      svc,
      outcomes.find((o) => o.id === "S1"),
    );
    rows.push([
      String(svc.servers),
      formatMicros(bare.serverMicrosPerRequest),
      formatRatio(bareGrowth),
      formatMicros(svc.serverMicrosPerRequest),
      formatRatio(svcGrowth),
      formatRatio(
        bareGrowth === undefined || svcGrowth === undefined ? undefined : svcGrowth / bareGrowth,
      ),
    ]);
  }
  return rows;
}

/**
 * One row per case run again at a fixed rate: what it answered, its server
 * CPU per request, and that against the one-process case of its kind (P for
 * the baselines, S1 for svc), so a flat cost shows as 1.00x.
 */
export function fixedRateRows(outcomes: readonly ScaleOutcome[]): string[][] {
  const rows: string[][] = [
    ["case", "asked req/s", "answered", "server us/req", "main thread", "growth", "machine busy"],
  ];
  for (const o of outcomes) {
    const at = o.atFixedRate;
    if (at === undefined) continue;
    const first = outcomes.find((other) => other.id === (o.id.startsWith("P") ? "P" : "S1"));
    const own = at.serverMicrosPerRequest;
    const base = first?.atFixedRate?.serverMicrosPerRequest;
    rows.push([
      o.id,
      formatInt(at.targetPerSecond),
      formatInt(at.requestsPerSecond),
      formatMicros(own),
      formatMicros(at.mainThreadMicrosPerRequest),
      formatRatio(own === undefined || base === undefined || base === 0 ? undefined : own / base),
      at.machineBusyShare === undefined ? "-" : `${Math.round(at.machineBusyShare * 100)}%`,
    ]);
  }
  return rows;
}

/** The tables `bench:scale` prints: raw figures, ratios, then wait events per case. */
export function formatScaleReport(outcomes: readonly ScaleOutcome[]): string {
  const raw: string[][] = [
    [
      "",
      "case",
      "req/s",
      "per server",
      "p50 ms",
      "p99 ms",
      "server CPU us/req",
      "main thread",
      "nginx CPU us/req",
      "Postgres CPU us/req",
      "load gen us/req",
      "machine busy",
      "non-2xx",
      "errors",
    ],
  ];
  for (const o of outcomes) {
    const r = o.result;
    if (r === undefined) {
      raw.push([o.id, o.label, "failed", ...Array.from({ length: 11 }, () => "-")]);
      continue;
    }
    raw.push([
      o.id,
      o.label,
      formatInt(r.requestsPerSecond),
      o.proxied === true
        ? "via nginx"
        : r.perServer.map((s) => formatInt(s.requestsPerSecond)).join(" / "),
      formatMs(r.p50Ms),
      formatMs(r.p99Ms),
      formatMicros(o.serverMicrosPerRequest),
      formatMicros(o.mainThreadMicrosPerRequest),
      formatMicros(o.proxyMicrosPerRequest),
      formatMicros(o.postgresMicrosPerRequest),
      formatMicros(o.loadGeneratorMicrosPerRequest),
      o.machineBusyShare === undefined ? "-" : `${Math.round(o.machineBusyShare * 100)}%`,
      formatInt(r.non2xx),
      formatInt(r.errors),
    ]);
  }

  const bare = outcomes.find((o) => o.id === "P");
  const one = outcomes.find((o) => o.id === "S1");
  const ratios: string[][] = [
    ["", "svc case", "vs bare pg", "by CPU", "vs 1 server", "by CPU", "goal", "result"],
  ];
  for (const o of outcomes) {
    const target = targetOf(o, outcomes);
    if (target === undefined && o.proxied !== true) continue;
    const several = o.servers > 1;
    ratios.push([
      o.id,
      o.label,
      formatRatio(ratioByRequests(o, bare)),
      formatRatio(ratioByCpu(o, bare)),
      several ? formatRatio(ratioByRequests(o, one)) : "",
      several ? formatRatio(ratioByCpu(o, one)) : "",
      target === undefined
        ? "none"
        : several
          ? `>= ${TARGET_VS_ONE_SERVER.toFixed(2)}x S1`
          : `>= ${TARGET_VS_BARE.toFixed(2)}x P`,
      scaleVerdict(o, outcomes),
    ]);
  }

  const parts = [table(raw, new Set([2, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13]))];
  if (ratios.length > 1) parts.push(table(ratios, new Set([2, 3, 4, 5])));
  const growth = cpuGrowthRows(outcomes);
  if (growth.length > 1) {
    parts.push(
      [
        "server CPU per request as processes are added (growth against one process; " +
          "svc's growth over the bare baseline's is what svc itself adds):",
        table(growth, new Set([1, 2, 3, 4, 5])),
      ].join("\n"),
    );
  }
  const fixed = fixedRateRows(outcomes);
  if (fixed.length > 1) {
    parts.push(
      [
        "the same servers at a fixed rate, below saturation (CPU per request with idle cores left; " +
          "growth against the same kind of case on one process):",
        table(fixed, new Set([1, 2, 3, 4, 5, 6])),
      ].join("\n"),
    );
  }
  const proxyLines = outcomes.flatMap((o) => {
    const direct = outcomes.find((other) => other.id === `S${o.servers}`);
    if (o.proxied !== true || o.result === undefined || direct?.result === undefined) return [];
    return [
      `${o.id} against ${direct.id} (the same servers, load sent to each directly): ` +
        `${formatRatio(ratioByRequests(o, direct))} by req/s, ` +
        `${formatRatio(ratioByCpu(o, direct))} by server CPU; nginx took ` +
        `${formatMicros(o.proxyMicrosPerRequest)} us of CPU per request`,
    ];
  });
  if (proxyLines.length > 0) parts.push(proxyLines.join("\n"));
  const waits = outcomes.flatMap((o) => {
    const lines = waitLines(o);
    return lines.length === 0 ? [] : [lines.join("\n")];
  });
  if (waits.length > 0) {
    parts.push(["pg_stat_activity during the measured run:", ...waits].join("\n\n"));
  }
  const failures = outcomes.filter((o) => o.result === undefined);
  if (failures.length > 0) {
    parts.push(
      ["failed:", ...failures.map((o) => `  ${o.id}: ${o.failure ?? "not run"}`)].join("\n"),
    );
  }
  return parts.join("\n\n");
}
