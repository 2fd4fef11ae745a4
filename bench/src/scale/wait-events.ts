import pg from "pg";

/** One line of the summary: a connection state and what it waited on. */
export interface WaitEventShare {
  /** `active`, `idle in transaction`, `idle`, ... */
  readonly state: string;
  /** `wait_event_type/wait_event`, or `-` when the backend was not waiting (on CPU). */
  readonly wait: string;
  /** Connections in this state, on average over the samples. */
  readonly meanConnections: number;
}

/** What the sampler saw over one measured run. */
export interface WaitEventSummary {
  readonly samples: number;
  /** Connections of the case, on average over the samples. */
  readonly meanConnections: number;
  /** Most connections first. */
  readonly shares: readonly WaitEventShare[];
  /** Postgres backend processes of the case seen during the run (for their CPU time). */
  readonly backendPids: ReadonlySet<number>;
}

/** A running sampler; `stop` ends it and summarises. */
export interface WaitEventSampler {
  stop(): Promise<WaitEventSummary>;
}

const QUERY = `select pid, coalesce(state, '') as state,
  coalesce(wait_event_type || '/' || wait_event, '-') as wait
from pg_stat_activity
where application_name = $1 and pid <> pg_backend_pid()`;

interface Row {
  readonly pid: number;
  readonly state: string;
  readonly wait: string;
}

/** The backend pids of a case's connections right now (to read their CPU time before a run). */
export async function backendPidsOf(url: string, applicationName: string): Promise<number[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const result = await client.query<Row>(QUERY, [applicationName]);
    return result.rows.map((row) => row.pid);
  } finally {
    await client.end();
  }
}

/**
 * Reads `pg_stat_activity` every `intervalMs` on a connection of its own
 * and counts the case's connections (those tagged `applicationName`) per
 * state and wait event: lock waits show as `Lock/...`, a transaction kept
 * open across client round trips as `idle in transaction` with
 * `Client/ClientRead`. The sampler runs in the bench process beside the
 * load generator; one small query per interval.
 */
export async function startWaitEventSampler(
  url: string,
  applicationName: string,
  intervalMs: number,
): Promise<WaitEventSampler> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const counts = new Map<string, { state: string; wait: string; total: number }>();
  const pids = new Set<number>();
  let samples = 0;
  let connections = 0;
  let stopped = false;
  let failure: unknown;

  const loop = (async () => {
    while (!stopped) {
      const started = Date.now();
      try {
        const result = await client.query<Row>(QUERY, [applicationName]);
        samples += 1;
        connections += result.rows.length;
        for (const row of result.rows) {
          pids.add(row.pid);
          const key = `${row.state}\u0000${row.wait}`;
          const entry = counts.get(key) ?? { state: row.state, wait: row.wait, total: 0 };
          entry.total += 1;
          counts.set(key, entry);
        }
      } catch (error) {
        failure = error;
        return;
      }
      const rest = intervalMs - (Date.now() - started);
      if (rest > 0) await new Promise((resolve) => setTimeout(resolve, rest));
    }
  })();

  return {
    async stop() {
      stopped = true;
      await loop;
      await client.end();
      if (failure !== undefined) throw failure;
      const divisor = Math.max(samples, 1);
      const shares = [...counts.values()]
        .map((entry) => ({
          state: entry.state,
          wait: entry.wait,
          meanConnections: entry.total / divisor,
        }))
        .sort((a, b) => b.meanConnections - a.meanConnections);
      return { samples, meanConnections: connections / divisor, shares, backendPids: pids };
    },
  };
}
