// `pnpm -F @svc/bench run bench:scale`: a one-row mutation on Postgres,
// bare node:http + pg (baseline P) against svc's `POST /api/fn/touch` on 1,
// 2 and 3 servers sharing one database (cases S1-S3), each after the bare
// baseline on as many processes (P2, P3), with the load split over the
// servers, then on 3 servers behind Debian's nginx (case N3, the
// whole load sent to nginx), the servers' CPU per request summed over all
// of them, and `pg_stat_activity` sampled during each run so lock waits show.
// Settings: scale/options.ts and README.md, "Scale-out on Postgres".

import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { availableParallelism, loadavg } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { DEFAULT_WRITE_POOL_SIZE } from "@svc/store/pg";
import { NGINX_PATH, type RunningNginx, startNginx } from "@svc/tooling/nginx";
import { mainThreadCpuSeconds, processCpuSeconds } from "./cpu.js";
import { message, oneLine, runBench } from "./entry.js";
import type { LoadRequest } from "./load.js";
import { BenchConfigError } from "./options.js";
import {
  getFreePort,
  getFreePortBlock,
  killAllChildren,
  type ServerProcess,
  startServer,
} from "./processes.js";
import { readScaleOptions, type ScaleOptions } from "./scale/options.js";
import {
  type FixedRateOutcome,
  formatScaleReport,
  type ScaleOutcome,
  scaleVerdict,
} from "./scale/report.js";
import { checkDatabase, postgresRunResources, type RunSchemas } from "./scale/schemas.js";
import { runSpreadLoad, type SpreadResult } from "./scale/spread-load.js";
import {
  backendPidsOf,
  startWaitEventSampler,
  type WaitEventSummary,
} from "./scale/wait-events.js";
import { createAdminToken, serverMainPath, startSvc, TOUCH_PATH } from "./svc.js";

const benchDir = fileURLToPath(new URL("..", import.meta.url));
const BODY = "{}";

const resources = postgresRunResources();

/** Where the case's database lives and the name its connections carry. */
interface CaseDatabase {
  readonly url: string;
  readonly applicationName: string;
}

/** One case to measure: its servers, the path they answer and the headers to send. */
interface RunningCase {
  readonly id: string;
  readonly label: string;
  readonly servers: readonly ServerProcess[];
  /** The load balancer the whole load goes to, when the case has one. */
  readonly proxy?: { readonly baseURL: string; readonly pid: number | undefined };
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly database: CaseDatabase;
}

/** Postgres backends are processes of this machine only when the URL names it. */
function isLocal(url: string): boolean {
  const host = new URL(url).hostname;
  return host === "" || host === "127.0.0.1" || host === "localhost" || host === "[::1]";
}

function cpuOf(
  pids: Iterable<number | undefined>,
  read: (pid: number | undefined) => number | undefined = processCpuSeconds,
): number | undefined {
  let total = 0;
  for (const pid of pids) {
    const seconds = read(pid);
    if (seconds === undefined) return undefined;
    total += seconds;
  }
  return total;
}

/** Sums CPU seconds of backends; one that started during the run counts from 0. */
function backendCpu(pids: Iterable<number>): Map<number, number> {
  const seconds = new Map<number, number>();
  for (const pid of pids) {
    const value = processCpuSeconds(pid);
    if (value !== undefined) seconds.set(pid, value);
  }
  return seconds;
}

/** Checks one probe answer: status 200 and `{id}` with a string id. */
async function probe(
  server: { readonly name: string; readonly baseURL: string },
  running: RunningCase,
): Promise<string | undefined> {
  const response = await fetch(`${server.baseURL}${running.path}`, {
    method: "POST",
    headers: running.headers,
    body: BODY,
    signal: AbortSignal.timeout(10_000),
  });
  const text = await response.text();
  if (response.status !== 200) {
    return `${server.name}: probe answered ${response.status}: ${text.slice(0, 200)}`;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return `${server.name}: probe answered non-JSON: ${text.slice(0, 200)}`;
  }
  const id = (parsed as { id?: unknown } | null)?.id;
  return typeof id === "string" ? undefined : `${server.name}: expected {id}, got ${text}`;
}

/** What one measured run gave, per request where it is CPU time. */
interface WindowFigures {
  readonly result: SpreadResult;
  readonly serverMicrosPerRequest?: number;
  readonly mainThreadMicrosPerRequest?: number;
  readonly postgresMicrosPerRequest?: number;
  readonly proxyMicrosPerRequest?: number;
  readonly loadGeneratorMicrosPerRequest?: number;
  readonly machineBusyShare?: number;
}

/**
 * One measured run of `requests` (as fast as the servers answer, or at
 * `rate` requests per second in all) and the CPU every process on the path
 * used in it. `pgPids`: the case's Postgres backends when they run on this
 * machine; `afterRun` gives the ones that appeared during the run.
 */
async function measureWindow(
  running: RunningCase,
  requests: readonly LoadRequest[],
  shape: {
    readonly connections: number;
    readonly durationSeconds: number;
    readonly rate: number | undefined;
  },
  pgPids: Iterable<number> | undefined,
  afterRun: () => Promise<Iterable<number>>,
): Promise<WindowFigures> {
  const proxy = running.proxy;
  const pgBefore = pgPids === undefined ? undefined : backendCpu(pgPids);
  const serverPids = running.servers.map((server) => server.pid);
  const cpuBefore = cpuOf(serverPids);
  const mainBefore = cpuOf(serverPids, mainThreadCpuSeconds);
  const proxyBefore = proxy === undefined ? undefined : processCpuSeconds(proxy.pid);
  // This process is the load generator (autocannon runs in it).
  const loadBefore = process.cpuUsage();
  const startedAt = performance.now();
  const result = await runSpreadLoad(
    requests,
    shape.connections,
    shape.durationSeconds,
    shape.rate,
  );
  const elapsedSeconds = (performance.now() - startedAt) / 1000;
  const loadUsed = process.cpuUsage(loadBefore);
  const cpuAfter = cpuOf(serverPids);
  const mainAfter = cpuOf(serverPids, mainThreadCpuSeconds);
  const proxyAfter = proxy === undefined ? undefined : processCpuSeconds(proxy.pid);
  const appeared = await afterRun();
  const pgAfter =
    pgBefore === undefined ? undefined : backendCpu([...pgBefore.keys(), ...appeared]);

  const perRequest = (seconds: number | undefined): number | undefined =>
    seconds === undefined || result.total === 0 ? undefined : (seconds * 1e6) / result.total;
  const difference = (before: number | undefined, after: number | undefined) =>
    before === undefined || after === undefined ? undefined : after - before;
  let pgSeconds: number | undefined;
  if (pgBefore !== undefined && pgAfter !== undefined && pgAfter.size > 0) {
    pgSeconds = 0;
    for (const [pid, after] of pgAfter) pgSeconds += after - (pgBefore.get(pid) ?? 0);
  }
  const serverSeconds = difference(cpuBefore, cpuAfter);
  const proxySeconds = difference(proxyBefore, proxyAfter);
  const loadSeconds = (loadUsed.user + loadUsed.system) / 1e6;
  const figures = {
    serverMicrosPerRequest: perRequest(serverSeconds),
    mainThreadMicrosPerRequest: perRequest(difference(mainBefore, mainAfter)),
    postgresMicrosPerRequest: perRequest(pgSeconds),
    proxyMicrosPerRequest: perRequest(proxySeconds),
    loadGeneratorMicrosPerRequest: perRequest(loadSeconds),
    // How much of the machine the measured processes used: near 1, every
    // core was busy, so a slower case had costlier requests, not idle cores.
    machineBusyShare:
      serverSeconds === undefined || pgSeconds === undefined
        ? undefined
        : (serverSeconds + pgSeconds + loadSeconds + (proxySeconds ?? 0)) /
          (elapsedSeconds * availableParallelism()),
  };
  return {
    result,
    ...Object.fromEntries(Object.entries(figures).filter(([, value]) => value !== undefined)),
  };
}

/** Probes every server, warms up, then measures with the wait-event sampler on. */
async function measure(running: RunningCase, options: ScaleOptions): Promise<ScaleOutcome> {
  const base = { id: running.id, label: running.label, servers: running.servers.length };
  const proxy = running.proxy;
  const probed = [
    ...running.servers,
    ...(proxy === undefined ? [] : [{ name: "nginx", baseURL: proxy.baseURL }]),
  ];
  for (const server of probed) {
    const wrong = await probe(server, running);
    if (wrong !== undefined) return { ...base, failure: oneLine(wrong) };
  }
  // Behind a proxy the whole load goes to it; else it is split over the servers.
  const targets = proxy === undefined ? running.servers : [proxy];
  const requests: LoadRequest[] = targets.map((target) => ({
    url: `${target.baseURL}${running.path}`,
    method: "POST",
    headers: running.headers,
    body: BODY,
  }));
  if (options.warmupSeconds > 0) {
    await runSpreadLoad(requests, options.connections, options.warmupSeconds);
  }
  const { url, applicationName } = running.database;
  const local = isLocal(url);
  const pgPids = local ? await backendPidsOf(url, applicationName) : undefined;
  const sampler = await startWaitEventSampler(url, applicationName, options.sampleIntervalMs);
  let waits: WaitEventSummary | undefined;
  const {
    result,
    serverMicrosPerRequest,
    mainThreadMicrosPerRequest,
    postgresMicrosPerRequest,
    proxyMicrosPerRequest,
    loadGeneratorMicrosPerRequest,
    machineBusyShare,
  } = await measureWindow(running, requests, { ...options, rate: undefined }, pgPids, async () => {
    waits = await sampler.stop();
    return waits.backendPids;
  });
  process.stderr.write(
    `  ${running.id} ${running.label}: ${Math.round(result.requestsPerSecond)} req/s` +
      `${serverMicrosPerRequest === undefined ? "" : `, ${serverMicrosPerRequest.toFixed(1)} us server CPU/req`}` +
      `${mainThreadMicrosPerRequest === undefined ? "" : ` (${mainThreadMicrosPerRequest.toFixed(1)} on main threads)`}` +
      `${proxyMicrosPerRequest === undefined ? "" : `, ${proxyMicrosPerRequest.toFixed(1)} us nginx CPU/req`}` +
      `${postgresMicrosPerRequest === undefined ? "" : `, ${postgresMicrosPerRequest.toFixed(1)} us Postgres CPU/req`}` +
      `${machineBusyShare === undefined ? "" : `, machine ${Math.round(machineBusyShare * 100)}% busy`}\n`,
  );
  // The same servers again below saturation (not behind nginx: the proxy
  // case is there to show what the load balancer costs at full load).
  let atFixedRate: FixedRateOutcome | undefined;
  if (options.fixedRate > 0 && proxy === undefined) {
    const pgAgain = local ? await backendPidsOf(url, applicationName) : undefined;
    const fixed = await measureWindow(
      running,
      requests,
      { ...options, rate: options.fixedRate },
      pgAgain,
      async () => (local ? backendPidsOf(url, applicationName) : []),
    );
    atFixedRate = {
      targetPerSecond: options.fixedRate,
      requestsPerSecond: fixed.result.requestsPerSecond,
      ...(fixed.serverMicrosPerRequest === undefined
        ? {}
        : { serverMicrosPerRequest: fixed.serverMicrosPerRequest }),
      ...(fixed.mainThreadMicrosPerRequest === undefined
        ? {}
        : { mainThreadMicrosPerRequest: fixed.mainThreadMicrosPerRequest }),
      ...(fixed.machineBusyShare === undefined ? {} : { machineBusyShare: fixed.machineBusyShare }),
    };
    process.stderr.write(
      `  ${running.id} at ${options.fixedRate} req/s: ${Math.round(fixed.result.requestsPerSecond)} req/s` +
        `${fixed.serverMicrosPerRequest === undefined ? "" : `, ${fixed.serverMicrosPerRequest.toFixed(1)} us server CPU/req`}` +
        `${fixed.machineBusyShare === undefined ? "" : `, machine ${Math.round(fixed.machineBusyShare * 100)}% busy`}\n`,
    );
  }
  return {
    ...base,
    ...(proxy === undefined ? {} : { proxied: true }),
    result,
    waits,
    ...(serverMicrosPerRequest === undefined ? {} : { serverMicrosPerRequest }),
    ...(proxyMicrosPerRequest === undefined ? {} : { proxyMicrosPerRequest }),
    ...(postgresMicrosPerRequest === undefined ? {} : { postgresMicrosPerRequest }),
    ...(mainThreadMicrosPerRequest === undefined ? {} : { mainThreadMicrosPerRequest }),
    ...(loadGeneratorMicrosPerRequest === undefined ? {} : { loadGeneratorMicrosPerRequest }),
    ...(machineBusyShare === undefined ? {} : { machineBusyShare }),
    ...(atFixedRate === undefined ? {} : { atFixedRate }),
  };
}

/**
 * Baseline P on `count` processes sharing one fresh schema (P, P2, P3), each
 * with svc's writer pool size: what the same machine does when the extra
 * processes add no work of svc's own, so svc's growth can be read against it.
 */
async function runBareBaseline(
  run: RunSchemas,
  count: number,
  options: ScaleOptions,
): Promise<ScaleOutcome> {
  const id = count === 1 ? "P" : `P${count}`;
  const label =
    `node:http + pg pool (${DEFAULT_WRITE_POOL_SIZE}), BEGIN; INSERT; COMMIT` +
    (count === 1 ? "" : `, ${count} processes`);
  const servers: ServerProcess[] = [];
  try {
    const database = await run.create(count === 1 ? "bare" : `bare${count}`);
    // Started one after the other: the first creates the table.
    for (let index = 1; index <= count; index += 1) {
      const port = await getFreePort();
      servers.push(
        await startServer({
          name: `baseline ${id} ${index}/${count}`,
          port,
          nodeArgs: [
            "--import",
            import.meta.resolve("tsx"),
            join(benchDir, "src", "servers", "insert-pg-http.ts"),
          ],
          cwd: benchDir,
          env: {
            BENCH_PORT: String(port),
            BENCH_DATABASE_URL: database.url,
            BENCH_POOL_SIZE: String(DEFAULT_WRITE_POOL_SIZE),
          },
          readyPath: "/ready",
        }),
      );
    }
    // The request svc gets, with a bearer token of the same length.
    const headers = {
      authorization: `Bearer ${createAdminToken()}`,
      "content-type": "application/json",
    };
    return await measure({ id, label, servers, path: "/", headers, database }, options);
  } catch (error) {
    return { id, label, servers: count, failure: oneLine(message(error)) };
  } finally {
    await Promise.all(servers.map((server) => server.stop()));
  }
}

/**
 * svc on `count` servers sharing one fresh schema, started one after the
 * other; `behindNginx`: with nginx in front of them taking the whole load.
 */
async function runSvcCase(
  run: RunSchemas,
  dir: string,
  shape: { readonly count: number; readonly behindNginx: boolean },
  options: ScaleOptions,
): Promise<ScaleOutcome> {
  const { count, behindNginx } = shape;
  const id = `${behindNginx ? "N" : "S"}${count}`;
  const label = behindNginx
    ? `svc ${TOUCH_PATH}, ${count} server${count === 1 ? "" : "s"} behind nginx`
    : `svc ${TOUCH_PATH}, ${count} server${count === 1 ? "" : "s"} on one database`;
  const servers: ServerProcess[] = [];
  let nginx: RunningNginx | undefined;
  try {
    const database = await run.create(`${behindNginx ? "nginx" : "svc"}${count}`);
    // One deployment: the same admin token and JWT secret on every server.
    const token = createAdminToken();
    const jwtSecret = randomBytes(32).toString("hex");
    let headers: Readonly<Record<string, string>> = {};
    for (let index = 1; index <= count; index += 1) {
      const svc = await startSvc({
        // The main port and the live transports' three after it.
        port: await getFreePortBlock(4),
        dir,
        token,
        jwtSecret,
        databaseURL: database.url,
        name: `svc server ${index}/${count}`,
      });
      servers.push(svc.server);
      headers = svc.headers;
    }
    if (behindNginx) {
      nginx = await startNginx({
        upstreams: servers.map((server) => new URL(server.baseURL).host),
      });
    }
    const proxy =
      nginx === undefined ? {} : { proxy: { baseURL: nginx.url, pid: nginx.child.pid } };
    return await measure(
      { id, label, servers, ...proxy, path: TOUCH_PATH, headers, database },
      options,
    );
  } catch (error) {
    return { id, label, servers: count, failure: oneLine(message(error)) };
  } finally {
    await nginx?.stop();
    await Promise.all(servers.map((server) => server.stop()));
  }
}

function loadLine(): string {
  return loadavg()
    .map((value) => value.toFixed(2))
    .join(" ");
}

async function main(): Promise<number> {
  const options = readScaleOptions(process.env, process.argv.slice(2));
  const redacted = new URL(options.databaseURL);
  redacted.password = redacted.password === "" ? "" : "***";
  try {
    await checkDatabase(options.databaseURL);
  } catch (error) {
    const reason = `no Postgres at ${redacted.toString()} (${message(error)}); set SVC_BENCH_DATABASE_URL`;
    if (options.optional) {
      process.stdout.write(`\nscale-out bench skipped: ${reason}\n`);
      return 0;
    }
    throw new BenchConfigError(reason);
  }
  if (!existsSync(serverMainPath())) {
    throw new BenchConfigError(`${serverMainPath()} is missing; run pnpm -F @svc/server build`);
  }
  const { dir, schemas: run } = await resources.open(options.databaseURL, "svc-bench-scale-");
  try {
    process.stderr.write(
      `svc scale-out bench on ${redacted.toString()}: ${options.durationSeconds} s per case after ` +
        `${options.warmupSeconds} s warm-up, ${options.connections} connections split over the servers, ` +
        `node ${process.version}, ${availableParallelism()} CPUs, load ${loadLine()}\n`,
    );
    // Each svc case right after the baseline on as many processes, so both
    // meet the machine in the same state.
    const outcomes: ScaleOutcome[] = [];
    for (let count = 1; count <= options.maxServers; count += 1) {
      process.stderr.write(`  (load ${loadLine()})\n`);
      outcomes.push(await runBareBaseline(run, count, options));
      process.stderr.write(`  (load ${loadLine()})\n`);
      outcomes.push(await runSvcCase(run, dir, { count, behindNginx: false }, options));
    }
    // The largest case again behind a real load balancer, when there is one to run.
    const proxied = options.maxServers;
    if (existsSync(NGINX_PATH) || !options.optional) {
      process.stderr.write(`  (load ${loadLine()})\n`);
      outcomes.push(await runSvcCase(run, dir, { count: proxied, behindNginx: true }, options));
    } else {
      process.stderr.write(`  N${proxied} skipped: no nginx at ${NGINX_PATH}\n`);
    }
    process.stdout.write(`\n${formatScaleReport(outcomes)}\n`);
    const broken = outcomes.filter(
      (o) => o.result === undefined || o.result.non2xx > 0 || o.result.errors > 0,
    );
    const missed = outcomes.filter((o) => scaleVerdict(o, outcomes) === "MISSED");
    if (broken.length > 0) return 1;
    const strict = process.env.BENCH_STRICT === "1" || process.env.BENCH_STRICT === "true";
    return strict && missed.length > 0 ? 1 : 0;
  } finally {
    killAllChildren();
    await resources.close();
  }
}

// The servers are gone by clean-up time, so their schemas can be dropped.
await runBench({ main, killChildren: killAllChildren, cleanUp: resources.close, name: "bench" });
