import { type ChildProcess, fork } from "node:child_process";
import { once } from "node:events";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { outputTail } from "../processes.js";
import type { ServerCommand, ServerMessage, ServerRequest } from "./protocol.js";

const running = new Set<ChildProcess>();
const OUTPUT_LIMIT = 8192;

/** A fan-out server in its own process, driven over IPC. */
export interface FanoutChild {
  /** `ws://127.0.0.1:<port>/ws` */
  readonly url: string;
  /** Sends one command and resolves with its answer. */
  request<T>(command: ServerCommand): Promise<T>;
  /** SIGTERM, then SIGKILL after a grace period. */
  stop(): Promise<void>;
}

/** Which server to start: `svc` (the hub) or `bare` (the `ws` baseline). */
export type ServerKind = "svc" | "bare";

/** Kills every server child still running, synchronously (safe in an `exit` handler). */
export function killFanoutChildren(): void {
  for (const child of running) {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  }
  running.clear();
}

/**
 * Forks `svc-server.ts` or `bare-server.ts` under tsx and waits for its
 * port. Workspace packages resolve to their builds (`dist/`), the code
 * users run: build first (`pnpm bench` and `bench:fanout` do).
 * `exposeGC` starts it with `--expose-gc` (case 4 measures after collecting).
 */
export async function startFanoutServer(
  kind: ServerKind,
  options: { env?: Readonly<Record<string, string>>; exposeGC?: boolean } = {},
): Promise<FanoutChild> {
  const script = fileURLToPath(new URL(`./${kind}-server.ts`, import.meta.url));
  const child = fork(script, [], {
    execArgv: [
      "--import",
      import.meta.resolve("tsx"),
      ...(options.exposeGC === true ? ["--expose-gc"] : []),
      // BENCH_FANOUT_CPU_PROF=<dir>: a V8 CPU profile of every server child.
      ...(process.env.BENCH_FANOUT_CPU_PROF
        ? ["--cpu-prof", `--cpu-prof-dir=${process.env.BENCH_FANOUT_CPU_PROF}`]
        : []),
    ],
    env: { ...process.env, NODE_ENV: "production", ...options.env },
    stdio: ["ignore", "pipe", "pipe", "ipc"],
  });
  running.add(child);
  const output = outputTail(child, OUTPUT_LIMIT);

  let seq = 0;
  const pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  let ready: ((port: number) => void) | undefined;
  const portPromise = new Promise<number>((resolve) => {
    ready = resolve;
  });
  child.on("message", (message: ServerMessage) => {
    if (message.type === "ready") {
      ready?.(message.port);
      return;
    }
    const waiter = pending.get(message.seq);
    pending.delete(message.seq);
    if (message.type === "answer") waiter?.resolve(message.value);
    else waiter?.reject(new Error(`${kind} server: ${message.message}`));
  });
  const exited = once(child, "exit").then(() => {
    const error = new Error(
      `${kind} server exited: ${output().trim().split("\n").slice(-5).join(" | ")}`,
    );
    for (const waiter of pending.values()) waiter.reject(error);
    pending.clear();
    throw error;
  });
  exited.catch(() => undefined);

  const port = await Promise.race([
    portPromise,
    exited,
    sleep(30_000).then(() => {
      throw new Error(`${kind} server was not ready within 30 s: ${output().trim()}`);
    }),
  ]);

  return {
    url: `ws://127.0.0.1:${port}/ws`,
    request<T>(command: ServerCommand): Promise<T> {
      seq += 1;
      const request: ServerRequest = { ...command, seq };
      return new Promise<T>((resolve, reject) => {
        pending.set(seq, { resolve: resolve as (v: unknown) => void, reject });
        child.send(request);
      });
    },
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill("SIGTERM");
        const done = await Promise.race([
          exited.then(
            () => true,
            () => true,
          ),
          sleep(3000).then(() => false),
        ]);
        if (!done) child.kill("SIGKILL");
      }
      running.delete(child);
    },
  };
}
