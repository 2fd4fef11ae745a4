import type { LoadResult } from "./load.js";
import { formatInt, formatMs, formatRatio, table } from "./report-format.js";

/**
 * What an svc case is held to: a baseline by letter, or another svc case
 * (the session-authenticated call against the same call with the admin token).
 */
export type BaselineId = "A" | "B" | "C" | "D" | "E" | "F" | "2";

/** One target of an svc case: its req/s must reach `ratio` times the baseline's. */
export interface CaseTarget {
  readonly baseline: BaselineId;
  readonly ratio: number;
}

/** A measured case, or why it could not be measured. */
export interface CaseOutcome {
  readonly id: string;
  readonly label: string;
  /** For svc cases: what it is held to (every target must be met). */
  readonly targets?: readonly CaseTarget[];
  readonly result?: LoadResult;
  /** Body size of the probe answer, in bytes. */
  readonly responseBytes?: number;
  /**
   * The server process's CPU time (user + system) per completed request
   * over the measured run, in microseconds; undefined without /proc.
   */
  readonly cpuMicrosPerRequest?: number;
  readonly failure?: string;
}

/** The verdict for one svc case. */
export type Verdict = "met" | "MISSED" | "n/a";

function ratio(outcome: CaseOutcome, base: CaseOutcome | undefined): number | undefined {
  const top = outcome.result?.requestsPerSecond;
  const bottom = base?.result?.requestsPerSecond;
  return top === undefined || bottom === undefined || bottom === 0 ? undefined : top / bottom;
}

/**
 * The same ratio by the servers' CPU per request (the baseline's over the
 * case's): what each request costs the server, whatever share of the two
 * CPUs the load generator took from it during the run.
 */
function cpuRatio(outcome: CaseOutcome, base: CaseOutcome | undefined): number | undefined {
  const own = outcome.cpuMicrosPerRequest;
  const theirs = base?.cpuMicrosPerRequest;
  return own === undefined || theirs === undefined || own === 0 ? undefined : theirs / own;
}

/** Whether an svc case reached one target, or cannot tell (a side was not measured). */
function targetVerdict(
  outcome: CaseOutcome,
  target: CaseTarget,
  outcomes: readonly CaseOutcome[],
): Verdict {
  const value = ratio(
    outcome,
    outcomes.find((o) => o.id === target.baseline),
  );
  if (value === undefined) return "n/a";
  return value >= target.ratio ? "met" : "MISSED";
}

/**
 * Whether an svc case reached all its targets: `MISSED` when one was
 * missed, `n/a` when none could be told (or it has none).
 */
export function verdictOf(outcome: CaseOutcome, outcomes: readonly CaseOutcome[]): Verdict {
  const verdicts = (outcome.targets ?? []).map((t) => targetVerdict(outcome, t, outcomes));
  if (verdicts.includes("MISSED")) return "MISSED";
  return verdicts.includes("met") ? "met" : "n/a";
}

/** The two tables the bench prints: raw numbers, then the svc ratios. */
export function formatReport(outcomes: readonly CaseOutcome[]): string {
  const raw: string[][] = [
    ["", "case", "req/s", "p50 ms", "p99 ms", "CPU us/req", "body B", "non-2xx", "errors"],
  ];
  for (const o of outcomes) {
    if (o.result === undefined) {
      raw.push([o.id, o.label, "failed", "-", "-", "-", "-", "-", "-"]);
      continue;
    }
    raw.push([
      o.id,
      o.label,
      formatInt(o.result.requestsPerSecond),
      formatMs(o.result.p50Ms),
      formatMs(o.result.p99Ms),
      o.cpuMicrosPerRequest === undefined ? "-" : o.cpuMicrosPerRequest.toFixed(1),
      o.responseBytes === undefined ? "-" : formatInt(o.responseBytes),
      formatInt(o.result.non2xx),
      formatInt(o.result.errors),
    ]);
  }
  const baselineA = outcomes.find((o) => o.id === "A");
  // One row per target; the case's id, label and ratio to A on its first.
  const ratios: string[][] = [
    ["", "svc case", "vs target", "target", "result", "by CPU", "vs A", "A by CPU"],
  ];
  for (const o of outcomes) {
    for (const [index, target] of (o.targets ?? []).entries()) {
      const vsTarget = ratio(
        o,
        outcomes.find((b) => b.id === target.baseline),
      );
      ratios.push([
        index === 0 ? o.id : "",
        index === 0 ? o.label : "",
        vsTarget === undefined ? "-" : `${formatRatio(vsTarget)} of ${target.baseline}`,
        `>= ${target.ratio.toFixed(2)}x ${target.baseline}`,
        targetVerdict(o, target, outcomes),
        formatRatio(
          cpuRatio(
            o,
            outcomes.find((b) => b.id === target.baseline),
          ),
        ),
        index === 0 ? formatRatio(ratio(o, baselineA)) : "",
        index === 0 ? formatRatio(cpuRatio(o, baselineA)) : "",
      ]);
    }
  }
  const parts = [table(raw, new Set([2, 3, 4, 5, 6, 7, 8]))];
  if (ratios.length > 1) parts.push(table(ratios, new Set([2, 5, 6, 7])));
  const failures = outcomes.filter((o) => o.result === undefined);
  if (failures.length > 0) {
    parts.push(
      ["failed:", ...failures.map((o) => `  ${o.id}: ${o.failure ?? "not run"}`)].join("\n"),
    );
  }
  return parts.join("\n\n");
}
