// The messages between the bench (parent) and a fan-out server (child),
// over the IPC channel of `child_process.fork`.

/** The entities the fan-out servers serve (see manifest.ts). */
export type FanoutEntity = "Feed" | "TenantFeed" | "Idle";

/** The tenants of case 2: rows alternate between them, so do subscribers. */
export const TENANTS = ["t0", "t1"] as const;

/** The subscription id every bench client uses, so both servers send byte-identical frames. */
export const SUBSCRIPTION_ID = "s";

/** What the bench asks a server to do. */
export type ServerCommand =
  /** Insert `count` rows one at a time, each after the hub has taken the previous one. */
  | { readonly cmd: "burst"; readonly entity: FanoutEntity; readonly count: number }
  /** Insert `count` rows, one every `intervalMs`, each stamped with `sentAt`. */
  | {
      readonly cmd: "paced";
      readonly entity: FanoutEntity;
      readonly count: number;
      readonly intervalMs: number;
    }
  /** Restart the CPU clock `stats` reports from. */
  | { readonly cmd: "mark" }
  /** CPU time since `mark`, memory and connections. `gc` collects garbage first (needs --expose-gc). */
  | { readonly cmd: "stats"; readonly gc?: boolean }
  /** The server's clock: `performance.timeOrigin + performance.now()`. */
  | { readonly cmd: "clock" };

/** A command with the number its answer carries. */
export type ServerRequest = ServerCommand & { readonly seq: number };

/** The answer to `stats`. */
export interface ServerStats {
  /** User + system CPU microseconds since the last `mark`. */
  readonly cpuMicros: number;
  readonly heapUsed: number;
  readonly rss: number;
  /** Open WebSocket connections. */
  readonly connections: number;
}

/** What a server sends back: its port once listening, then one answer per request. */
export type ServerMessage =
  | { readonly type: "ready"; readonly port: number }
  | { readonly type: "answer"; readonly seq: number; readonly value: unknown }
  | { readonly type: "failed"; readonly seq: number; readonly message: string };

/** The bearer token of subscriber `index`: the server derives the caller from it. */
export function tokenOf(index: number): string {
  return `u${index}.${TENANTS[index % TENANTS.length]}`;
}

/** The caller a token names: `{ userId, tenantId }`, or null for anything else. */
export function callerOf(token: string | undefined): { userId: string; tenantId: string } | null {
  const match = /^(u\d+)\.(t\d+)$/.exec(token ?? "");
  return match?.[1] === undefined || match[2] === undefined
    ? null
    : { userId: match[1], tenantId: match[2] };
}

/** The fields of row `n`: every server writes (or fakes) exactly these, so frames are the same size. */
export function rowData(n: number, sentAt = 0): Record<string, string | number> {
  return {
    title: `change ${String(n).padStart(8, "0")} of the fan-out bench`,
    tenantId: TENANTS[n % TENANTS.length] ?? "t0",
    n,
    sentAt,
  };
}
