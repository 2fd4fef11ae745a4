// `pnpm bench`: starts each server in its own child process on 127.0.0.1,
// drives it with autocannon from this process, and prints req/s, latency and
// the svc/baseline ratios. Settings: see options.ts and README.md.

import { existsSync, writeFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type BaselineSpec, baselineCases, type CaseSpec, svcCases } from "./cases.js";
import { processCpuSeconds } from "./cpu.js";
import { message, oneLine, runBench } from "./entry.js";
import {
  ITEM_COUNT,
  type ItemRow,
  makeItems,
  withSyntheticIds,
  writeItemsDatabase,
} from "./items.js";
import { type LoadRequest, runLoad } from "./load.js";
import { type BenchOptions, readOptions } from "./options.js";
import {
  getFreePort,
  getFreePortBlock,
  killAllChildren,
  type ServerProcess,
  startServer,
} from "./processes.js";
import { type CaseOutcome, formatReport, verdictOf } from "./report.js";
import { type RunSchemas, runSchemas } from "./scale/schemas.js";
import {
  type CredentialHeaders,
  createAdminToken,
  fetchItems,
  type SvcServer,
  seedItems,
  serverMainPath,
  signInBenchUser,
  startSvc,
} from "./svc.js";

const benchDir = fileURLToPath(new URL("..", import.meta.url));
let tempDir: string | undefined;

// Each svc case runs right after the baseline it is held to, so a change in
// the machine's load during the run skews its ratio as little as possible.
const ORDER = ["A", "B", "D", "2", "4", "5", "6", "F", "1", "C", "E", "3"] as const;

/** The files the baselines serve from, written into the run's temporary directory. */
interface BaselineFiles {
  /** Baseline C's copy of the rows (`BENCH_DB_PATH`). */
  readonly rowsDatabase: string;
  /** The rows' JSON, as svc answers it, for baseline E (`BENCH_ROWS_PATH`). */
  readonly rowsJSON: string;
  /** Baseline F's own database, created by it (`BENCH_TOUCH_DB_PATH`). */
  readonly touchDatabase: string;
}

function failed(spec: CaseSpec, reason: string): CaseOutcome {
  return {
    id: spec.id,
    label: spec.label,
    ...(spec.targets ? { targets: spec.targets } : {}),
    failure: oneLine(reason),
  };
}

/** Probes once, warms up, then measures one case against a running server. */
async function measure(
  server: ServerProcess,
  spec: CaseSpec,
  headers: Readonly<Record<string, string>>,
  options: BenchOptions,
): Promise<CaseOutcome> {
  const request: LoadRequest = {
    url: `${server.baseURL}${spec.path}`,
    method: spec.method,
    headers,
    ...(spec.body === undefined ? {} : { body: spec.body }),
  };
  const probe = await fetch(request.url, {
    method: request.method,
    headers,
    ...(spec.body === undefined ? {} : { body: spec.body }),
    signal: AbortSignal.timeout(10_000),
  });
  const text = await probe.text();
  if (probe.status !== 200) {
    return failed(spec, `probe answered ${probe.status}: ${text.slice(0, 200)}`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return failed(spec, `probe answered non-JSON: ${text.slice(0, 200)}`);
  }
  const wrong = spec.check(parsed);
  if (wrong !== undefined) return failed(spec, `probe: ${wrong}`);

  const shape = { connections: options.connections };
  if (options.warmupSeconds > 0) {
    await runLoad(request, { ...shape, durationSeconds: options.warmupSeconds });
  }
  const cpuBefore = processCpuSeconds(server.pid);
  const result = await runLoad(request, { ...shape, durationSeconds: options.durationSeconds });
  const cpuAfter = processCpuSeconds(server.pid);
  const cpuMicrosPerRequest =
    cpuBefore === undefined || cpuAfter === undefined || result.total === 0
      ? undefined
      : ((cpuAfter - cpuBefore) * 1e6) / result.total;
  process.stderr.write(
    `  ${spec.id} ${spec.label}: ${Math.round(result.requestsPerSecond)} req/s, p99 ${result.p99Ms} ms` +
      `${cpuMicrosPerRequest === undefined ? "" : `, ${cpuMicrosPerRequest.toFixed(1)} us CPU/req`}\n`,
  );
  return {
    id: spec.id,
    label: spec.label,
    ...(spec.targets ? { targets: spec.targets } : {}),
    result,
    responseBytes: Buffer.byteLength(text),
    ...(cpuMicrosPerRequest === undefined ? {} : { cpuMicrosPerRequest }),
  };
}

/** Starts the svc server, seeds the items and reads them back; the reason on failure. */
async function setUpSvc(
  dir: string,
  schemas: RunSchemas | undefined,
): Promise<
  { svc: SvcServer; rows: ItemRow[]; credentials: CredentialHeaders } | { failure: string }
> {
  if (!existsSync(serverMainPath())) {
    return { failure: `${serverMainPath()} is missing; run pnpm -F @svc/server build` };
  }
  let svc: SvcServer | undefined;
  try {
    const database = schemas === undefined ? undefined : await schemas.create("main");
    process.stderr.write(
      `starting the svc server on ${database === undefined ? "SQLite" : "Postgres"} and seeding ${ITEM_COUNT} items...\n`,
    );
    // The main port and the live transports' three after it.
    svc = await startSvc({
      port: await getFreePortBlock(4),
      dir,
      token: createAdminToken(),
      ...(database === undefined ? {} : { databaseURL: database.url }),
    });
    await seedItems(svc, makeItems(ITEM_COUNT));
    const credentials = await signInBenchUser(svc);
    return { svc, rows: await fetchItems(svc, ITEM_COUNT), credentials };
  } catch (error) {
    process.stderr.write(`svc server: ${message(error)}\n`);
    await svc?.server.stop();
    return { failure: message(error) };
  }
}

/** Starts one baseline in its own child process, measures it and stops it. */
async function runBaseline(
  spec: BaselineSpec,
  files: BaselineFiles,
  headers: Readonly<Record<string, string>>,
  options: BenchOptions,
): Promise<CaseOutcome> {
  let server: ServerProcess | undefined;
  try {
    const port = await getFreePort();
    server = await startServer({
      name: `baseline ${spec.id}`,
      port,
      nodeArgs: [
        "--import",
        import.meta.resolve("tsx"),
        join(benchDir, "src", "servers", spec.script),
      ],
      cwd: benchDir,
      env: {
        BENCH_PORT: String(port),
        BENCH_DB_PATH: files.rowsDatabase,
        BENCH_ROWS_PATH: files.rowsJSON,
        BENCH_TOUCH_DB_PATH: files.touchDatabase,
      },
      readyPath: spec.readyPath ?? spec.path,
    });
    return await measure(server, spec, headers, options);
  } catch (error) {
    return failed(spec, message(error));
  } finally {
    await server?.stop();
  }
}

async function run(dir: string, options: BenchOptions): Promise<CaseOutcome[]> {
  const schemas =
    options.svcDatabaseURL === undefined ? undefined : runSchemas(options.svcDatabaseURL);
  const setup = options.scope === "baselines" ? undefined : await setUpSvc(dir, schemas);
  try {
    const rows = setup !== undefined && "rows" in setup ? setup.rows : undefined;
    const files: BaselineFiles = {
      rowsDatabase: join(dir, "baseline-c.db"),
      rowsJSON: join(dir, "baseline-e.json"),
      touchDatabase: join(dir, "baseline-f.db"),
    };
    const served = rows ?? withSyntheticIds(makeItems(ITEM_COUNT));
    writeItemsDatabase(files.rowsDatabase, served);
    // The same key order as svc's answer (id, then the fields in manifest order): the same bytes.
    writeFileSync(files.rowsJSON, JSON.stringify(served));
    // The baselines get the headers svc calls carry (a bearer token of the same length).
    const baselineHeaders = {
      authorization: `Bearer ${createAdminToken()}`,
      "content-type": "application/json",
    };
    const outcomes: CaseOutcome[] = [];
    for (const id of ORDER) {
      const baseline = baselineCases.find((spec) => spec.id === id);
      if (baseline !== undefined) {
        if (options.scope !== "svc") {
          outcomes.push(await runBaseline(baseline, files, baselineHeaders, options));
        }
        continue;
      }
      const spec = svcCases.find((candidate) => candidate.id === id);
      if (spec === undefined || setup === undefined) continue;
      if ("failure" in setup) {
        outcomes.push(failed(spec, setup.failure));
        continue;
      }
      try {
        const headers =
          spec.auth === undefined || spec.auth === "admin"
            ? setup.svc.headers
            : setup.credentials[spec.auth];
        outcomes.push(await measure(setup.svc.server, spec, headers, options));
      } catch (error) {
        outcomes.push(failed(spec, message(error)));
      }
    }
    return outcomes;
  } finally {
    if (setup !== undefined && "svc" in setup) await setup.svc.server.stop();
    await schemas?.dropAll();
  }
}

async function main(): Promise<number> {
  const options = readOptions(process.env);
  const dir = await mkdtemp(join(tmpdir(), "svc-bench-harness-"));
  tempDir = dir;
  try {
    process.stderr.write(
      `svc bench: ${options.durationSeconds} s per case after ${options.warmupSeconds} s warm-up, ` +
        `${options.connections} connections, node ${process.version}, ${availableParallelism()} CPUs\n`,
    );
    const outcomes = await run(dir, options);
    // Baselines first, then the svc cases, whatever order they ran in.
    const sorted = [
      ...outcomes.filter((o) => o.targets === undefined),
      ...outcomes.filter((o) => o.targets !== undefined),
    ];
    process.stdout.write(`\n${formatReport(sorted)}\n`);
    const broken = outcomes.filter(
      (o) => o.result === undefined || o.result.non2xx > 0 || o.result.errors > 0,
    );
    const missed = outcomes.filter((o) => verdictOf(o, outcomes) === "MISSED");
    if (broken.length > 0) return 1;
    return options.strict && missed.length > 0 ? 1 : 0;
  } finally {
    killAllChildren();
    await rm(dir, { recursive: true, force: true });
    tempDir = undefined;
  }
}

await runBench({
  main,
  killChildren: killAllChildren,
  cleanUp: () =>
    tempDir === undefined ? undefined : rm(tempDir, { recursive: true, force: true }),
  name: "bench",
});
