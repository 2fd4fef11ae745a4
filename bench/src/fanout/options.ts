import { BenchConfigError } from "../options.js";

/** The fan-out cases, by number (see README.md, "Live sync fan-out"). */
export type FanoutCaseId = "1" | "2" | "3" | "4";

/** The fan-out run's settings, read from `BENCH_FANOUT_*`. */
export interface FanoutOptions {
  /** Subscribers of cases 1 and 2 (`BENCH_FANOUT_CLIENTS`, default 1000). */
  readonly clients: number;
  /** Measured changes of cases 1 and 2 (`BENCH_FANOUT_CHANGES`, default 500). */
  readonly changes: number;
  /** Unmeasured changes before each of cases 1 and 2 (`BENCH_FANOUT_WARMUP`, default 100). */
  readonly warmupChanges: number;
  /**
   * Cases 1 and 2 run this many times, alternating servers, and keep each
   * server's best run (`BENCH_FANOUT_ROUNDS`, default 1): on a machine busy
   * with other work the best run is the least disturbed one.
   */
  readonly rounds: number;
  /** Subscribers of case 3 (`BENCH_FANOUT_LATENCY_CLIENTS`, default 100). */
  readonly latencyClients: number;
  /** Writes of case 3 (`BENCH_FANOUT_LATENCY_WRITES`, default 200). */
  readonly latencyWrites: number;
  /** Milliseconds between the writes of case 3 (`BENCH_FANOUT_LATENCY_INTERVAL_MS`, default 10). */
  readonly latencyIntervalMs: number;
  /** Idle subscriptions of case 4 (`BENCH_FANOUT_IDLE`, default 1000). */
  readonly idleConnections: number;
  /** `BENCH_FANOUT_ONLY=1,3` runs a subset (default: every case). */
  readonly only: ReadonlySet<FanoutCaseId>;
  /** `BENCH_STRICT=1`: exit 1 when a case misses its target. */
  readonly strict: boolean;
}

function readInteger(env: NodeJS.ProcessEnv, name: string, fallback: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw.trim() === "") return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1 || value > max) {
    throw new BenchConfigError(
      `${name} must be an integer from 1 to ${max}, got ${JSON.stringify(raw)}`,
    );
  }
  return value;
}

const ALL_CASES: readonly FanoutCaseId[] = ["1", "2", "3", "4"];

function readOnly(env: NodeJS.ProcessEnv): ReadonlySet<FanoutCaseId> {
  const raw = env.BENCH_FANOUT_ONLY?.trim();
  if (raw === undefined || raw === "") return new Set(ALL_CASES);
  const ids = raw.split(",").map((part) => part.trim());
  const unknown = ids.filter((id) => !ALL_CASES.includes(id as FanoutCaseId));
  if (unknown.length > 0) {
    throw new BenchConfigError(
      `BENCH_FANOUT_ONLY must list cases from 1 to 4 (e.g. "1,3"), got ${JSON.stringify(raw)}`,
    );
  }
  return new Set(ids as FanoutCaseId[]);
}

/** Reads and checks the `BENCH_FANOUT_*` variables. */
export function readFanoutOptions(env: NodeJS.ProcessEnv): FanoutOptions {
  return {
    clients: readInteger(env, "BENCH_FANOUT_CLIENTS", 1000, 10_000),
    changes: readInteger(env, "BENCH_FANOUT_CHANGES", 500, 100_000),
    warmupChanges: readInteger(env, "BENCH_FANOUT_WARMUP", 100, 100_000),
    rounds: readInteger(env, "BENCH_FANOUT_ROUNDS", 1, 20),
    latencyClients: readInteger(env, "BENCH_FANOUT_LATENCY_CLIENTS", 100, 10_000),
    latencyWrites: readInteger(env, "BENCH_FANOUT_LATENCY_WRITES", 200, 100_000),
    latencyIntervalMs: readInteger(env, "BENCH_FANOUT_LATENCY_INTERVAL_MS", 10, 10_000),
    idleConnections: readInteger(env, "BENCH_FANOUT_IDLE", 1000, 20_000),
    only: readOnly(env),
    strict: env.BENCH_STRICT === "1" || env.BENCH_STRICT === "true",
  };
}
