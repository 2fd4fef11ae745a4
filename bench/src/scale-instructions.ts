// `pnpm -F @svc/bench run bench:scale:instructions`: whether a server does
// more work per request when other servers write to the same database.
// CPU time cannot tell on a small machine: servers sharing two cores with
// Postgres and the load generator evict each other's caches, so the same
// work takes more cycles (bench:scale's fixed-rate table shows that growth).
// Instructions do not change with that. One server runs under valgrind's
// callgrind, counting only while it is measured; it answers the same slow,
// fixed-rate load in runs that alternate between alone and while two peer
// servers on the same schema take `BENCH_SCALE_PEER_RATE` writes a second
// each, ending alone (so drift falls on both kinds). The peers' writes
// reach it the way they reach any server: through Postgres (change
// notifications, the feed horizon, cache invalidations). Main-thread
// instructions are the figure: the GC and compiler threads' share moves
// with the heap and V8's tiering, not with the requests.

import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { message, runBench } from "./entry.js";
import { type LoadRequest, runLoad } from "./load.js";
import { BenchConfigError } from "./options.js";
import { getFreePortBlock, killAllChildren, type ServerProcess } from "./processes.js";
import { formatInt, table } from "./report-format.js";
import { DEFAULT_DATABASE_URL, readInteger } from "./scale/options.js";
import { checkDatabase, postgresRunResources } from "./scale/schemas.js";
import { createAdminToken, serverMainPath, startSvc, TOUCH_PATH } from "./svc.js";

const VALGRIND = "/usr/bin/valgrind";
const CALLGRIND_CONTROL = "/usr/bin/callgrind_control";

const resources = postgresRunResources();

interface Settings {
  readonly databaseURL: string;
  /** Requests a second to the measured server (`BENCH_SCALE_MEASURED_RATE`, default 20). */
  readonly measuredRate: number;
  /** Seconds of each measured run (`BENCH_SCALE_MEASURED_SECONDS`, default 30). */
  readonly measuredSeconds: number;
  /** Writes a second to each peer during the runs with peers (`BENCH_SCALE_PEER_RATE`, default 500). */
  readonly peerRate: number;
  /** Pairs of runs, alone then with peers writing, before a last alone run (`BENCH_SCALE_ROUNDS`, default 2). */
  readonly rounds: number;
}

function readSettings(): Settings {
  return {
    databaseURL: process.env.SVC_BENCH_DATABASE_URL?.trim() || DEFAULT_DATABASE_URL,
    measuredRate: readInteger(process.env, "BENCH_SCALE_MEASURED_RATE", 20, 1, 200),
    measuredSeconds: readInteger(process.env, "BENCH_SCALE_MEASURED_SECONDS", 30, 5, 600),
    peerRate: readInteger(process.env, "BENCH_SCALE_PEER_RATE", 500, 1, 100_000),
    rounds: readInteger(process.env, "BENCH_SCALE_ROUNDS", 2, 1, 20),
  };
}

/** Runs `callgrind_control` against the measured server; throws with its output on failure. */
function callgrindControl(pid: number, ...args: string[]): void {
  const result = spawnSync(CALLGRIND_CONTROL, [...args, String(pid)], { encoding: "utf8" });
  if (result.status !== 0) {
    throw new Error(
      `callgrind_control ${args.join(" ")} failed: ${result.stderr || result.stdout}`,
    );
  }
}

/** Instructions in one dump, in all and on the main thread (callgrind's thread 1). */
interface DumpTotals {
  readonly all: number;
  readonly mainThread: number;
}

/** The dump files callgrind writes, one per thread: `cg.<pid>.out.<dump>-<thread>`. */
const DUMP_FILE = /^cg\.\d+\.out\.(\d+)-(\d+)$/;

function dumpNumbers(dir: string): Set<number> {
  const numbers = new Set<number>();
  for (const name of readdirSync(dir)) {
    const match = DUMP_FILE.exec(name);
    if (match !== null) numbers.add(Number(match[1]));
  }
  return numbers;
}

/** The totals of the first dump numbered above `after`, once every thread's file is there. */
async function nextDumpTotals(dir: string, after: number): Promise<DumpTotals> {
  for (let attempt = 0; attempt < 100; attempt += 1) {
    const numbers = [...dumpNumbers(dir)].filter((n) => n > after);
    const dump = numbers.length === 0 ? undefined : Math.min(...numbers);
    if (dump !== undefined) {
      // Give callgrind a moment to finish every thread's file.
      await sleep(500);
      let all = 0;
      let mainThread = 0;
      for (const name of readdirSync(dir)) {
        const match = DUMP_FILE.exec(name);
        if (match === null || Number(match[1]) !== dump) continue;
        const total = /^totals:\s+(\d+)/m.exec(readFileSync(join(dir, name), "utf8"))?.[1];
        const count = Number(total ?? 0);
        all += count;
        if (Number(match[2]) === 1) mainThread = count;
      }
      return { all, mainThread };
    }
    await sleep(100);
  }
  throw new Error("callgrind wrote no dump");
}

function lastDump(dir: string): number {
  return Math.max(0, ...dumpNumbers(dir));
}

interface Phase {
  readonly label: string;
  readonly requests: number;
  /** Instructions on every thread of the measured server while it was measured. */
  readonly instructions: number;
  /** The part on its main thread, where requests are handled (the rest: GC and compiler threads). */
  readonly mainThreadInstructions: number;
  readonly peerWrites: number;
}

async function measurePhase(
  label: string,
  server: ServerProcess,
  request: LoadRequest,
  settings: Settings,
  dir: string,
  peers: readonly { request: LoadRequest }[],
): Promise<Phase> {
  const pid = server.pid;
  if (pid === undefined) throw new Error("the measured server has no pid");
  const before = lastDump(dir);
  callgrindControl(pid, "--instr=on");
  const peerLoad = Promise.all(
    peers.map((peer) =>
      runLoad(peer.request, {
        connections: 8,
        durationSeconds: settings.measuredSeconds,
        requestsPerSecond: settings.peerRate,
      }),
    ),
  );
  const measured = await runLoad(request, {
    connections: 2,
    durationSeconds: settings.measuredSeconds,
    requestsPerSecond: settings.measuredRate,
  });
  callgrindControl(pid, "--instr=off");
  const peerResults = await peerLoad;
  callgrindControl(pid, `--dump=${label}`);
  const totals = await nextDumpTotals(dir, before);
  const bad =
    measured.non2xx + measured.errors + peerResults.reduce((n, r) => n + r.non2xx + r.errors, 0);
  if (bad > 0) throw new Error(`${label}: ${bad} requests failed`);
  const phase = {
    label,
    requests: measured.total,
    instructions: totals.all,
    mainThreadInstructions: totals.mainThread,
    peerWrites: peerResults.reduce((n, r) => n + r.total, 0),
  };
  process.stderr.write(
    `  ${label}: ${phase.requests} requests, ${formatInt(totals.all / phase.requests)} instructions each ` +
      `(${formatInt(totals.mainThread / phase.requests)} on the main thread)` +
      `${phase.peerWrites > 0 ? `, ${phase.peerWrites} peer writes meanwhile` : ""}\n`,
  );
  return phase;
}

function formatReport(phases: readonly Phase[], settings: Settings): string {
  const all = (phase: Phase) => phase.instructions / phase.requests;
  const main = (phase: Phase) => phase.mainThreadInstructions / phase.requests;
  const alone = phases.filter((phase) => phase.peerWrites === 0);
  const mean = (pick: (phase: Phase) => number) =>
    alone.reduce((sum, phase) => sum + pick(phase), 0) / alone.length;
  const aloneAll = mean(all);
  const aloneMain = mean(main);
  const rows: string[][] = [
    [
      "run",
      "requests",
      "peer writes",
      "main thread/request",
      "of alone",
      "all threads/request",
      "of alone",
    ],
  ];
  for (const phase of phases) {
    rows.push([
      phase.label,
      formatInt(phase.requests),
      formatInt(phase.peerWrites),
      formatInt(main(phase)),
      `${(main(phase) / aloneMain).toFixed(3)}x`,
      formatInt(all(phase)),
      `${(all(phase) / aloneAll).toFixed(3)}x`,
    ]);
  }
  const lines = [table(rows, new Set([1, 2, 3, 4, 5, 6]))];
  const withPeers = phases.filter((phase) => phase.peerWrites > 0);
  const peerWrites = withPeers.reduce((sum, phase) => sum + phase.peerWrites, 0);
  const extra = withPeers.reduce(
    (sum, phase) => sum + phase.mainThreadInstructions - aloneMain * phase.requests,
    0,
  );
  if (peerWrites > 0) {
    const perPeerWrite = extra / peerWrites;
    const spread = alone.map(main);
    // In bench:scale's S3 every server sees two peer writes per write of its own.
    const share = (2 * perPeerWrite * 100) / aloneMain;
    lines.push(
      `with peers writing: ${formatInt(perPeerWrite)} main-thread instructions per peer write ` +
        `against the mean of the alone runs, so ${Math.abs(share).toFixed(1)}% ` +
        `${share < 0 ? "less" : "more"} work per request for one of three equally loaded servers; ` +
        `the alone runs themselves ` +
        `spread from ${formatInt(Math.min(...spread))} to ${formatInt(Math.max(...spread))} ` +
        `(${settings.measuredRate} req/s to the measured server, ${settings.peerRate} to each peer, ` +
        `${settings.measuredSeconds} s a run)`,
    );
  }
  return lines.join("\n\n");
}

async function main(): Promise<number> {
  const settings = readSettings();
  for (const tool of [VALGRIND, CALLGRIND_CONTROL]) {
    if (!existsSync(tool)) {
      throw new BenchConfigError(`${tool} is missing (Debian: apt-get install valgrind)`);
    }
  }
  if (!existsSync(serverMainPath())) {
    throw new BenchConfigError(`${serverMainPath()} is missing; run pnpm -F @svc/server build`);
  }
  try {
    await checkDatabase(settings.databaseURL);
  } catch (error) {
    throw new BenchConfigError(`no Postgres (${message(error)}); set SVC_BENCH_DATABASE_URL`);
  }
  const { dir, schemas: run } = await resources.open(
    settings.databaseURL,
    "svc-bench-instructions-",
  );
  const servers: ServerProcess[] = [];
  try {
    const database = await run.create("instructions");
    const token = createAdminToken();
    const jwtSecret = randomBytes(32).toString("hex");
    const shared = { dir, token, jwtSecret, databaseURL: database.url };
    process.stderr.write("starting the measured server under callgrind (a minute or so)\n");
    const measured = await startSvc({
      ...shared,
      port: await getFreePortBlock(4),
      name: "measured svc server (callgrind)",
      wrapper: [
        VALGRIND,
        "--tool=callgrind",
        "--instr-atstart=no",
        "--separate-threads=yes",
        `--callgrind-out-file=${join(dir, "cg.%p.out")}`,
      ],
      readyTimeoutMs: 300_000,
    });
    servers.push(measured.server);
    const request: LoadRequest = {
      url: `${measured.server.baseURL}${TOUCH_PATH}`,
      method: "POST",
      headers: measured.headers,
      body: "{}",
    };
    const peers = [];
    for (const index of [1, 2]) {
      const peer = await startSvc({
        ...shared,
        port: await getFreePortBlock(4),
        name: `peer svc server ${index}`,
      });
      servers.push(peer.server);
      peers.push({
        request: { ...request, url: `${peer.server.baseURL}${TOUCH_PATH}` },
      });
    }
    // Uninstrumented (so several times faster) warm-up, long enough for V8
    // to have compiled the request path to its top tier before counting.
    process.stderr.write("warming up\n");
    await runLoad(request, { connections: 4, durationSeconds: 60 });
    for (const peer of peers) {
      await runLoad(peer.request, { connections: 8, durationSeconds: 3 });
    }
    // Alternated, so drift (the heap growing, a late compile) falls on both kinds alike.
    const phases: Phase[] = [];
    for (let round = 1; round <= settings.rounds; round += 1) {
      phases.push(
        await measurePhase(`alone ${round}`, measured.server, request, settings, dir, []),
      );
      phases.push(
        await measurePhase(
          `peers writing ${round}`,
          measured.server,
          request,
          settings,
          dir,
          peers,
        ),
      );
    }
    phases.push(
      await measurePhase(
        `alone ${settings.rounds + 1}`,
        measured.server,
        request,
        settings,
        dir,
        [],
      ),
    );
    process.stdout.write(`\n${formatReport(phases, settings)}\n`);
    return 0;
  } finally {
    await Promise.all(servers.map((server) => server.stop()));
    killAllChildren();
    await resources.close();
  }
}

await runBench({ main, killChildren: killAllChildren, cleanUp: resources.close, name: "bench" });
