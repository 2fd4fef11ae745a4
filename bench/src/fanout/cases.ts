// The four fan-out measurements. Each starts its own server process, so one
// case's garbage, JIT state or open sockets never weigh on the next.
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { type FanoutChild, type ServerKind, startFanoutServer } from "./child.js";
import { type ClientPool, openClients } from "./clients.js";
import type { FanoutOptions } from "./options.js";
import { type FanoutEntity, type ServerStats, TENANTS } from "./protocol.js";

/** Case 1 or 2 on one server: frames delivered and what they cost the server. */
export interface ThroughputResult {
  readonly kind: ServerKind;
  readonly changes: number;
  readonly subscribers: number;
  /** Change frames the clients received. */
  readonly deliveries: number;
  /** From the first measured write to the last frame's receipt. */
  readonly seconds: number;
  /** The server process's user + system CPU over the same stretch. */
  readonly serverCpuSeconds: number;
  /** This process's (the clients') CPU over it: near `seconds`, the clients were the limit. */
  readonly clientCpuSeconds: number;
  /** Size of one change frame as received. */
  readonly frameBytes: number;
}

/** Case 3 on one server. */
export interface LatencyResult {
  readonly kind: ServerKind;
  readonly samples: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly maxMs: number;
  /** The round trip of the best clock sample: the bound on the clock correction's error. */
  readonly clockRttMs: number;
}

/** Case 4 on one server. */
export interface MemoryResult {
  readonly kind: ServerKind;
  readonly connections: number;
  readonly heapBytesPerConnection: number;
  readonly rssBytesPerConnection: number;
}

// Idle connections opened before case 4's first reading.
const WARM_CONNECTIONS = 10;

let runs = 0;

// Frames of one run must arrive within this (plus a second per 10,000 frames).
const BASE_TIMEOUT_MS = 60_000;

function timeoutFor(frames: number): number {
  return BASE_TIMEOUT_MS + frames / 10;
}

async function withServer<T>(
  kind: ServerKind,
  dir: string,
  label: string,
  body: (server: FanoutChild) => Promise<T>,
  exposeGC = false,
): Promise<T> {
  const server = await startFanoutServer(kind, {
    // A fresh database per run: cursors and row counts start alike every time.
    env: { BENCH_DB_PATH: join(dir, `${kind}-${label}-${++runs}.db`) },
    exposeGC,
  });
  try {
    return await body(server);
  } finally {
    await server.stop();
  }
}

async function withClients<T>(
  options: Parameters<typeof openClients>[0],
  body: (pool: ClientPool) => Promise<T>,
): Promise<T> {
  const pool = await openClients(options);
  try {
    return await body(pool);
  } finally {
    await pool.close();
  }
}

/** How many of `subscribers` may see rows `first..first+count-1` of `TenantFeed` (tenants alternate). */
function tenantDeliveries(first: number, count: number, subscribers: number): number {
  const perTenant = TENANTS.map(
    (_, t) => Math.floor(subscribers / TENANTS.length) + (t < subscribers % TENANTS.length ? 1 : 0),
  );
  let total = 0;
  for (let n = first; n < first + count; n += 1) total += perTenant[n % TENANTS.length] ?? 0;
  return total;
}

/**
 * Cases 1 and 2: `clients` subscribers of `entity`; the server writes
 * `warmupChanges` unmeasured rows, then `changes` measured ones, each as
 * soon as the previous one's frames have left user space.
 */
export function measureThroughput(
  kind: ServerKind,
  entity: FanoutEntity,
  options: FanoutOptions,
  dir: string,
): Promise<ThroughputResult> {
  const { clients, changes, warmupChanges } = options;
  const expected = (first: number, count: number): number =>
    entity === "TenantFeed" ? tenantDeliveries(first, count, clients) : count * clients;
  return withServer(kind, dir, entity, (server) =>
    withClients({ url: server.url, count: clients, entity }, async (pool) => {
      await server.request({ cmd: "burst", entity, count: warmupChanges });
      const warm = expected(0, warmupChanges);
      await pool.waitFor(warm, timeoutFor(warm));
      pool.reset();
      await server.request({ cmd: "mark" });
      const deliveries = expected(warmupChanges, changes);
      const started = performance.now();
      const clientCpu = process.cpuUsage();
      const writing = server.request({ cmd: "burst", entity, count: changes });
      await pool.waitFor(deliveries, timeoutFor(deliveries));
      const seconds = (performance.now() - started) / 1000;
      const clientMicros = process.cpuUsage(clientCpu);
      await writing;
      const stats = await server.request<ServerStats>({ cmd: "stats" });
      // Give stray frames (a bug: more than expected) a moment to show.
      await sleep(50);
      if (pool.received() !== deliveries) {
        throw new Error(`expected ${deliveries} frames, received ${pool.received()}`);
      }
      return {
        kind,
        changes,
        subscribers: clients,
        deliveries,
        seconds,
        serverCpuSeconds: stats.cpuMicros / 1e6,
        clientCpuSeconds: (clientMicros.user + clientMicros.system) / 1e6,
        frameBytes: pool.frameBytes(),
      };
    }),
  );
}

function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const index = Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1);
  return sorted[Math.max(0, index)] ?? Number.NaN;
}

/**
 * The server's clock minus this process's, from the clock sample with the
 * shortest round trip (its error is at most half that round trip).
 */
async function clockOffset(server: FanoutChild): Promise<{ offset: number; rtt: number }> {
  let best = { offset: 0, rtt: Number.POSITIVE_INFINITY };
  for (let i = 0; i < 30; i += 1) {
    const before = performance.timeOrigin + performance.now();
    const theirs = await server.request<number>({ cmd: "clock" });
    const after = performance.timeOrigin + performance.now();
    if (after - before < best.rtt) {
      best = { offset: theirs - (before + after) / 2, rtt: after - before };
    }
  }
  return best;
}

/**
 * Case 3: `latencyClients` subscribers of `Feed`; `latencyWrites` writes,
 * one every `latencyIntervalMs`, each row stamped with the server's clock
 * just before `store.transaction` is called; each receipt is timed against
 * it (corrected by the measured clock offset between the processes).
 */
export function measureLatency(
  kind: ServerKind,
  options: FanoutOptions,
  dir: string,
): Promise<LatencyResult> {
  const { latencyClients: clients, latencyWrites: writes, latencyIntervalMs } = options;
  const samples: number[] = [];
  let offset = 0;
  let recording = false;
  return withServer(kind, dir, "latency", (server) =>
    withClients(
      {
        url: server.url,
        count: clients,
        entity: "Feed",
        onChange: (receivedAt, sentAt) => {
          if (recording) samples.push(receivedAt - (sentAt - offset));
        },
      },
      async (pool) => {
        const warmup = Math.min(writes, 50);
        await server.request({ cmd: "paced", entity: "Feed", count: warmup, intervalMs: 2 });
        await pool.waitFor(warmup * clients, timeoutFor(warmup * clients));
        const clock = await clockOffset(server);
        offset = clock.offset;
        pool.reset();
        recording = true;
        await server.request({
          cmd: "paced",
          entity: "Feed",
          count: writes,
          intervalMs: latencyIntervalMs,
        });
        await pool.waitFor(writes * clients, timeoutFor(writes * clients));
        recording = false;
        const sorted = [...samples].sort((a, b) => a - b);
        return {
          kind,
          samples: sorted.length,
          p50Ms: percentile(sorted, 50),
          p99Ms: percentile(sorted, 99),
          maxMs: sorted.at(-1) ?? Number.NaN,
          clockRttMs: clock.rtt,
        };
      },
    ),
  );
}

/**
 * Case 4: the server's heap and RSS (after forced collections) before and
 * after `idleConnections` clients connect and subscribe to an empty entity,
 * divided by the count.
 */
export function measureMemory(
  kind: ServerKind,
  options: FanoutOptions,
  dir: string,
): Promise<MemoryResult> {
  const count = options.idleConnections;
  return withServer(
    kind,
    dir,
    "idle",
    (server) =>
      // A few connections first, kept open: the code paths a first
      // connection loads and compiles are not a per-connection cost.
      withClients({ url: server.url, count: WARM_CONNECTIONS, entity: "Idle" }, async () => {
        const before = await server.request<ServerStats>({ cmd: "stats", gc: true });
        return withClients({ url: server.url, count, entity: "Idle" }, async () => {
          const after = await server.request<ServerStats>({ cmd: "stats", gc: true });
          if (after.connections !== count + WARM_CONNECTIONS) {
            throw new Error(
              `expected ${count + WARM_CONNECTIONS} open connections, the server has ${after.connections}`,
            );
          }
          return {
            kind,
            connections: count,
            heapBytesPerConnection: (after.heapUsed - before.heapUsed) / count,
            rssBytesPerConnection: (after.rss - before.rss) / count,
          };
        });
      }),
    true,
  );
}
