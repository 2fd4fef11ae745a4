/** Which cases a run measures. */
export type BenchScope = "all" | "baselines" | "svc";

/** The run's settings, read from the environment. */
export interface BenchOptions {
  /** Seconds of measured load per case (`BENCH_DURATION`, default 5). */
  readonly durationSeconds: number;
  /** Seconds of unmeasured load before each case (`BENCH_WARMUP`, default 3). */
  readonly warmupSeconds: number;
  /** Concurrent keep-alive connections (`BENCH_CONNECTIONS`, default 32). */
  readonly connections: number;
  /** `BENCH_ONLY=baselines` or `BENCH_ONLY=svc` runs a subset (default: all). */
  readonly scope: BenchScope;
  /** `BENCH_STRICT=1` exits 1 when an svc case misses its target (default: report only). */
  readonly strict: boolean;
  /**
   * `BENCH_SVC_DATABASE_URL`: runs the svc server on this Postgres database
   * (in a fresh schema, dropped afterwards) instead of a SQLite file, so the
   * credential cases show what a session or API key costs on Postgres.
   */
  readonly svcDatabaseURL?: string;
}

/** Thrown for a bad `BENCH_*` variable; main prints its message alone. */
export class BenchConfigError extends Error {
  override readonly name = "BenchConfigError";
}

function readNumber(
  env: NodeJS.ProcessEnv,
  name: string,
  fallback: number,
  range: { min: number; max: number; integer: boolean },
): number {
  const raw = env[name];
  if (raw === undefined || raw.trim() === "") return fallback;
  const value = Number(raw);
  const valid =
    Number.isFinite(value) &&
    value >= range.min &&
    value <= range.max &&
    (!range.integer || Number.isInteger(value));
  if (!valid) {
    const kind = range.integer ? "an integer" : "a number";
    throw new BenchConfigError(
      `${name} must be ${kind} from ${range.min} to ${range.max}, got ${JSON.stringify(raw)}`,
    );
  }
  return value;
}

/** Reads and checks the `BENCH_*` variables. */
export function readOptions(env: NodeJS.ProcessEnv): BenchOptions {
  const scopeRaw = env.BENCH_ONLY?.trim() || "all";
  if (scopeRaw !== "all" && scopeRaw !== "baselines" && scopeRaw !== "svc") {
    throw new BenchConfigError(
      `BENCH_ONLY must be "baselines", "svc" or "all", got ${JSON.stringify(scopeRaw)}`,
    );
  }
  return {
    durationSeconds: readNumber(env, "BENCH_DURATION", 5, { min: 1, max: 600, integer: true }),
    warmupSeconds: readNumber(env, "BENCH_WARMUP", 3, { min: 0, max: 60, integer: true }),
    connections: readNumber(env, "BENCH_CONNECTIONS", 32, { min: 1, max: 1024, integer: true }),
    scope: scopeRaw,
    strict: env.BENCH_STRICT === "1" || env.BENCH_STRICT === "true",
    ...svcDatabase(env),
  };
}

function svcDatabase(env: NodeJS.ProcessEnv): { svcDatabaseURL?: string } {
  const url = env.BENCH_SVC_DATABASE_URL?.trim();
  if (url === undefined || url === "") return {};
  if (!/^postgres(ql)?:\/\//.test(url)) {
    throw new BenchConfigError("BENCH_SVC_DATABASE_URL must be a postgres:// URL");
  }
  return { svcDatabaseURL: url };
}
