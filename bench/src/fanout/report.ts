import type { LatencyResult, MemoryResult, ThroughputResult } from "./cases.js";

/** Targets of the issue: ratios and absolute figures on one machine. */
export const TARGETS = {
  fanoutRatio: 0.7,
  checksPerCoreSecond: 30_000,
  p50Ms: 5,
  p99Ms: 20,
} as const;

/** One printed row: the figure, its context, and whether it met its target. */
export interface ReportRow {
  readonly id: string;
  readonly label: string;
  readonly figure: string;
  readonly context: string;
  readonly target: string;
  readonly verdict: "met" | "MISSED" | "-" | "failed";
}

function int(value: number): string {
  return Math.round(value).toLocaleString("en-US");
}

function ms(value: number): string {
  return value.toFixed(2);
}

function kb(bytes: number): string {
  return (bytes / 1024).toFixed(1);
}

function percent(share: number): string {
  return `${Math.round(share * 100)}%`;
}

/** Deliveries per wall second. */
export function deliveryRate(result: ThroughputResult): number {
  return result.deliveries / result.seconds;
}

/** Case 1: svc against the bare `ws` loop. */
export function fanoutRows(svc: ThroughputResult, bare: ThroughputResult): ReportRow[] {
  const ratio = deliveryRate(svc) / deliveryRate(bare);
  // Robust to other work on the machine: what one delivery costs the server.
  const cpuRatio =
    bare.serverCpuSeconds / bare.deliveries / (svc.serverCpuSeconds / svc.deliveries);
  const cpuPer = (r: ThroughputResult): string =>
    `server ${((r.serverCpuSeconds * 1e6) / r.deliveries).toFixed(2)} us CPU/delivery (${percent(r.serverCpuSeconds / r.seconds)} busy), clients ${percent(r.clientCpuSeconds / r.seconds)} busy`;
  return [
    {
      id: "1b",
      label: `bare ws loop, ${int(bare.subscribers)} subs x ${int(bare.changes)} changes`,
      figure: `${int(deliveryRate(bare))} deliveries/s`,
      context: `${cpuPer(bare)}, ${bare.frameBytes} B/frame`,
      target: "baseline",
      verdict: "-",
    },
    {
      id: "1",
      label: `svc hub fan-out, ${int(svc.subscribers)} subs x ${int(svc.changes)} changes`,
      figure: `${int(deliveryRate(svc))} deliveries/s`,
      context: `${ratio.toFixed(2)}x of 1b (${cpuRatio.toFixed(2)}x by server CPU); ${cpuPer(svc)}, ${svc.frameBytes} B/frame`,
      target: `>= ${TARGETS.fanoutRatio.toFixed(2)}x 1b`,
      verdict: ratio >= TARGETS.fanoutRatio ? "met" : "MISSED",
    },
  ];
}

/** Case 2: subscriber x change checks per second of server CPU. */
export function policyRow(result: ThroughputResult): ReportRow {
  const checks = result.changes * result.subscribers;
  const perCore = checks / result.serverCpuSeconds;
  return {
    id: "2",
    label: `svc policy-filtered (tenant rule, half see each row), ${int(result.subscribers)} subs`,
    figure: `${int(perCore)} checks/s per core`,
    context: `${int(checks / result.seconds)} checks/s wall, ${int(deliveryRate(result))} deliveries/s`,
    target: `>= ${int(TARGETS.checksPerCoreSecond)}/s`,
    verdict: perCore >= TARGETS.checksPerCoreSecond ? "met" : "MISSED",
  };
}

/** Case 3: write-to-subscriber latency. */
export function latencyRow(result: LatencyResult, id: string): ReportRow {
  const met = result.p50Ms < TARGETS.p50Ms && result.p99Ms < TARGETS.p99Ms;
  return {
    id,
    label:
      result.kind === "svc"
        ? "svc write-to-subscriber latency"
        : "bare ws send-to-receipt latency (context)",
    figure: `p50 ${ms(result.p50Ms)} ms, p99 ${ms(result.p99Ms)} ms`,
    context: `max ${ms(result.maxMs)} ms, ${int(result.samples)} samples, clock +-${ms(result.clockRttMs / 2)} ms`,
    target: result.kind === "svc" ? `p50 < ${TARGETS.p50Ms}, p99 < ${TARGETS.p99Ms}` : "-",
    verdict: result.kind === "svc" ? (met ? "met" : "MISSED") : "-",
  };
}

/** Case 4: memory per idle subscribed connection. */
export function memoryRow(result: MemoryResult, id: string, bare?: MemoryResult): ReportRow {
  const vs =
    bare === undefined
      ? ""
      : `; ${(result.heapBytesPerConnection / bare.heapBytesPerConnection).toFixed(1)}x heap of 4b`;
  return {
    id,
    label: `${result.kind === "svc" ? "svc hub" : "bare ws"}: ${int(result.connections)} idle subscriptions`,
    figure: `${kb(result.heapBytesPerConnection)} KB heap/conn`,
    context: `${kb(result.rssBytesPerConnection)} KB rss/conn${vs}`,
    target: "report",
    verdict: "-",
  };
}

/** A case that could not run. */
export function failedRow(id: string, label: string, reason: string): ReportRow {
  return {
    id,
    label,
    figure: "failed",
    context: reason.slice(0, 160),
    target: "-",
    verdict: "failed",
  };
}

/** The table `pnpm bench` prints. */
export function formatFanoutReport(rows: readonly ReportRow[]): string {
  const cells = [
    ["", "case", "figure", "context", "target", "result"],
    ...rows.map((r) => [r.id, r.label, r.figure, r.context, r.target, r.verdict]),
  ];
  const widths =
    cells[0]?.map((_, c) => Math.max(...cells.map((row) => row[c]?.length ?? 0))) ?? [];
  return cells
    .map((row) =>
      row
        .map((cell, c) => cell.padEnd(widths[c] ?? 0))
        .join("  ")
        .trimEnd(),
    )
    .join("\n");
}
