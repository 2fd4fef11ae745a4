// `pnpm bench` (third part): live sync fan-out over WebSocket. The server
// under test (svc's hub, or a bare `ws` baseline) runs in a child process;
// the subscribers are real `ws` clients in this process, so on two cores
// each side has one. Cases, settings and how to read them: README.md,
// "Live sync fan-out"; the code is in fanout/.

import { mkdtemp, rm } from "node:fs/promises";
import { availableParallelism, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { message, runBench } from "./entry.js";
import {
  measureLatency,
  measureMemory,
  measureThroughput,
  type ThroughputResult,
} from "./fanout/cases.js";
import { killFanoutChildren } from "./fanout/child.js";
import { type FanoutOptions, readFanoutOptions } from "./fanout/options.js";
import {
  deliveryRate,
  failedRow,
  fanoutRows,
  formatFanoutReport,
  latencyRow,
  memoryRow,
  policyRow,
  type ReportRow,
} from "./fanout/report.js";

let tempDir: string | undefined;

function progress(text: string): void {
  process.stderr.write(`  ${text}\n`);
}

/** Runs one case; its rows, or one `failed` row with the reason. */
async function attempt(
  id: string,
  label: string,
  body: () => Promise<ReportRow[]>,
): Promise<ReportRow[]> {
  progress(`${id} ${label}...`);
  try {
    return await body();
  } catch (error) {
    progress(`${id} failed: ${message(error)}`);
    return [failedRow(id, label, message(error))];
  }
}

/** The better of two runs: more deliveries per second, or (`byCpu`) less server CPU. */
function best(
  a: ThroughputResult | undefined,
  b: ThroughputResult,
  byCpu = false,
): ThroughputResult {
  if (a === undefined) return b;
  if (byCpu) return b.serverCpuSeconds < a.serverCpuSeconds ? b : a;
  return deliveryRate(b) > deliveryRate(a) ? b : a;
}

function rate(result: ThroughputResult | undefined): string {
  return result === undefined ? "-" : Math.round(deliveryRate(result)).toLocaleString("en-US");
}

async function run(options: FanoutOptions, dir: string): Promise<ReportRow[]> {
  const rows: ReportRow[] = [];
  if (options.only.has("1")) {
    rows.push(
      ...(await attempt("1", "fan-out throughput (bare ws, then svc)", async () => {
        let bare: ThroughputResult | undefined;
        let svc: ThroughputResult | undefined;
        for (let round = 0; round < options.rounds; round += 1) {
          bare = best(bare, await measureThroughput("bare", "Feed", options, dir));
          svc = best(svc, await measureThroughput("svc", "Feed", options, dir));
          progress(
            `  round ${round + 1}: bare ${rate(bare)}, svc ${rate(svc)} deliveries/s (best so far)`,
          );
        }
        if (bare === undefined || svc === undefined) throw new Error("no round ran");
        return fanoutRows(svc, bare);
      })),
    );
  }
  if (options.only.has("2")) {
    rows.push(
      ...(await attempt("2", "policy-filtered fan-out", async () => {
        let svc: ThroughputResult | undefined;
        for (let round = 0; round < options.rounds; round += 1) {
          svc = best(svc, await measureThroughput("svc", "TenantFeed", options, dir), true);
        }
        if (svc === undefined) throw new Error("no round ran");
        return [policyRow(svc)];
      })),
    );
  }
  if (options.only.has("3")) {
    rows.push(
      ...(await attempt("3", "write-to-subscriber latency", async () => [
        latencyRow(await measureLatency("svc", options, dir), "3"),
        latencyRow(await measureLatency("bare", options, dir), "3b"),
      ])),
    );
  }
  if (options.only.has("4")) {
    rows.push(
      ...(await attempt("4", "memory per idle subscription", async () => {
        const bare = await measureMemory("bare", options, dir);
        const svc = await measureMemory("svc", options, dir);
        return [memoryRow(bare, "4b"), memoryRow(svc, "4", bare)];
      })),
    );
  }
  return rows;
}

async function main(): Promise<number> {
  const options = readFanoutOptions(process.env);
  const dir = await mkdtemp(join(tmpdir(), "svc-bench-fanout-"));
  tempDir = dir;
  try {
    process.stderr.write(
      `\nLive sync fan-out: ${options.clients} subscribers x ${options.changes} changes ` +
        `(after ${options.warmupChanges} warm-up, best of ${options.rounds}), latency ${options.latencyClients} subscribers x ` +
        `${options.latencyWrites} writes every ${options.latencyIntervalMs} ms, ` +
        `${options.idleConnections} idle; node ${process.version}, ${availableParallelism()} CPUs, ` +
        `load ${loadavg()
          .map((l) => l.toFixed(2))
          .join(" ")}\n`,
    );
    const rows = await run(options, dir);
    process.stdout.write(`\nLive sync fan-out\n${formatFanoutReport(rows)}\n`);
    if (rows.some((row) => row.verdict === "failed")) return 1;
    return options.strict && rows.some((row) => row.verdict === "MISSED") ? 1 : 0;
  } finally {
    killFanoutChildren();
    await rm(dir, { recursive: true, force: true });
    tempDir = undefined;
  }
}

await runBench({
  main,
  killChildren: killFanoutChildren,
  cleanUp: () =>
    tempDir === undefined ? undefined : rm(tempDir, { recursive: true, force: true }),
  name: "fan-out bench",
});
