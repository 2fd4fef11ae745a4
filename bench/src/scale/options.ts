import { BenchConfigError } from "../options.js";

/** The local server `.ci/run` gives the Postgres test suites. */
export const DEFAULT_DATABASE_URL = "postgres://postgres@127.0.0.1:5432/test";

/** The scale-out run's settings (see README.md, "Scale-out on Postgres"). */
export interface ScaleOptions {
  /** The Postgres server and database (`SVC_BENCH_DATABASE_URL`); each case gets a fresh schema in it. */
  readonly databaseURL: string;
  /** Measured seconds per case (`BENCH_SCALE_DURATION`, default 10). */
  readonly durationSeconds: number;
  /** Unmeasured seconds before each case (`BENCH_SCALE_WARMUP`, default 2). */
  readonly warmupSeconds: number;
  /** Keep-alive connections in all, split over the servers (`BENCH_CONNECTIONS`, default 32). */
  readonly connections: number;
  /** The svc cases run 1, 2, ... up to this many servers (`BENCH_SCALE_SERVERS`, default 3). */
  readonly maxServers: number;
  /**
   * Requests per second in all for the second, fixed-rate run of every case
   * (`BENCH_SCALE_RATE`, default 1500; 0 skips it): below what any case
   * reaches, so the machine has idle CPU and a server's CPU per request shows
   * its own work, not the contention of a saturated machine.
   */
  readonly fixedRate: number;
  /** Milliseconds between two `pg_stat_activity` samples (`BENCH_SCALE_SAMPLE_MS`, default 100). */
  readonly sampleIntervalMs: number;
  /**
   * `--optional` (how `pnpm bench` runs it): an unreachable database skips
   * the run with a line saying so instead of failing it.
   */
  readonly optional: boolean;
}

/** An integer variable of `env` within `min`..`max`, or `fallback` when unset or blank. */
export function readInteger(
  env: NodeJS.ProcessEnv,
  name: string,
  fallback: number,
  min: number,
  max: number,
): number {
  const raw = env[name];
  if (raw === undefined || raw.trim() === "") return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new BenchConfigError(
      `${name} must be an integer from ${min} to ${max}, got ${JSON.stringify(raw)}`,
    );
  }
  return value;
}

/** Reads and checks the variables and arguments of `bench:scale`. */
export function readScaleOptions(env: NodeJS.ProcessEnv, args: readonly string[]): ScaleOptions {
  const unknown = args.filter((arg) => arg !== "--optional");
  if (unknown.length > 0) {
    throw new BenchConfigError(`unknown argument ${JSON.stringify(unknown[0])} (only --optional)`);
  }
  const databaseURL = env.SVC_BENCH_DATABASE_URL?.trim() || DEFAULT_DATABASE_URL;
  if (!/^postgres(ql)?:\/\//.test(databaseURL)) {
    throw new BenchConfigError("SVC_BENCH_DATABASE_URL must be a postgres:// URL");
  }
  return {
    databaseURL,
    durationSeconds: readInteger(env, "BENCH_SCALE_DURATION", 10, 1, 600),
    warmupSeconds: readInteger(env, "BENCH_SCALE_WARMUP", 2, 0, 60),
    connections: readInteger(env, "BENCH_CONNECTIONS", 32, 1, 1024),
    maxServers: readInteger(env, "BENCH_SCALE_SERVERS", 3, 1, 8),
    fixedRate: readInteger(env, "BENCH_SCALE_RATE", 1500, 0, 1_000_000),
    sampleIntervalMs: readInteger(env, "BENCH_SCALE_SAMPLE_MS", 100, 10, 10_000),
    optional: args.includes("--optional"),
  };
}
