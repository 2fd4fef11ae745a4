import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { readFileSync } from "node:fs";
import { createServer } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";

/** The loopback address every server binds to and the load generator calls. */
export const HOST = "127.0.0.1";

const OUTPUT_LIMIT = 16_384;
const running = new Set<ChildProcess>();

/**
 * Asks the OS for a free TCP port on the loopback interface by binding port
 * 0 and closing again; the child binds it a moment later.
 */
export async function getFreePort(): Promise<number> {
  const probe = createServer();
  probe.listen(0, HOST);
  await once(probe, "listening");
  const address = probe.address();
  probe.close();
  await once(probe, "close");
  if (address === null || typeof address === "string") {
    throw new Error("the OS did not report a port for the probe socket");
  }
  return address.port;
}

/** Binds `port` on the loopback interface and closes again; false when it is taken. */
async function isFree(port: number): Promise<boolean> {
  const probe = createServer();
  const bound = await new Promise<boolean>((resolve) => {
    probe.once("error", () => resolve(false));
    probe.listen(port, HOST, () => resolve(true));
  });
  if (bound) {
    probe.close();
    await once(probe, "close");
  }
  return bound;
}

/** The first port of the kernel's ephemeral range (where outgoing connections take theirs). */
function ephemeralLow(): number {
  try {
    const low = Number(
      readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8").split(/\s+/)[0],
    );
    return Number.isInteger(low) && low > 12_000 ? low : 32_768;
  } catch {
    return 32_768;
  }
}

/**
 * A run of `count` consecutive free ports, for a server that listens on
 * `port` and the ones after it (svc: `SVC_PORT` and `+ 1` to `+ 3`). Taken
 * at random below the ephemeral range, so the load generator's and the
 * servers' own outgoing connections cannot take one of them meanwhile
 * (which a port the OS picks for port 0 does not promise for the next).
 */
export async function getFreePortBlock(count: number): Promise<number> {
  const high = ephemeralLow() - count;
  for (let attempt = 0; attempt < 100; attempt += 1) {
    const first = 10_000 + Math.floor(Math.random() * (high - 10_000));
    let free = true;
    for (let port = first; free && port < first + count; port += 1) free = await isFree(port);
    if (free) return first;
  }
  throw new Error(`no ${count} consecutive free ports below ${high + count}`);
}

/** A server running in its own child process. */
export interface ServerProcess {
  readonly name: string;
  /** `http://127.0.0.1:<port>` */
  readonly baseURL: string;
  /** The child's process id, for reading its CPU time. */
  readonly pid: number | undefined;
  /** The last bytes the child wrote to stdout and stderr, for failure reports. */
  output(): string;
  /** SIGTERM, then SIGKILL if it has not exited after a grace period. */
  stop(): Promise<void>;
}

/** How to start one server process and tell when it is ready. */
export interface StartOptions {
  readonly name: string;
  readonly port: number;
  /** The Node.js arguments: a script and, for TypeScript, the tsx loader before it. */
  readonly nodeArgs: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  readonly cwd: string;
  /** Polled with GET until it answers 200 (and `isReady` accepts the body, when given). */
  readonly readyPath: string;
  readonly isReady?: (body: string) => boolean;
  /** Gives up after this long (default 20 s). */
  readonly readyTimeoutMs?: number;
}

/**
 * Keeps the last `limit` characters a child writes to stdout and stderr,
 * to say why it failed; the answer is the tail so far.
 */
export function outputTail(child: ChildProcess, limit = OUTPUT_LIMIT): () => string {
  let output = "";
  const collect = (chunk: Buffer): void => {
    output = (output + chunk.toString("utf8")).slice(-limit);
  };
  child.stdout?.on("data", collect);
  child.stderr?.on("data", collect);
  return () => output;
}

/** The line of a crashed child's output that most likely says why. */
function reasonIn(output: string): string {
  const lines = output
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "");
  const errorLine = lines.findLast((line) => /error|invalid|cannot|failed/i.test(line));
  return errorLine ?? lines.at(-1) ?? "no output";
}

function isAlive(child: ChildProcess): boolean {
  return child.exitCode === null && child.signalCode === null;
}

/** Kills every child still running, synchronously; safe to call from an `exit` handler. */
export function killAllChildren(): void {
  for (const child of running) {
    if (isAlive(child)) child.kill("SIGKILL");
  }
  running.clear();
}

/** The variables a child inherits: enough to run Node.js, nothing that configures svc. */
function baseEnv(): Record<string, string> {
  const env: Record<string, string> = { NODE_ENV: "production" };
  for (const name of ["PATH", "HOME", "TMPDIR", "LANG", "SYSTEMROOT"]) {
    const value = process.env[name];
    if (value !== undefined) env[name] = value;
  }
  return env;
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (!isAlive(child)) {
    running.delete(child);
    return;
  }
  const exited = once(child, "exit");
  child.kill("SIGTERM");
  const graceful = await Promise.race([exited.then(() => true), sleep(3000).then(() => false)]);
  if (!graceful && isAlive(child)) {
    child.kill("SIGKILL");
    await Promise.race([exited, sleep(2000)]);
  }
  running.delete(child);
}

/**
 * Starts a server with `process.execPath` in a child process and resolves
 * once its ready path answers. On failure the child is killed and the error
 * carries the tail of its output.
 */
export async function startServer(options: StartOptions): Promise<ServerProcess> {
  const child = spawn(process.execPath, [...options.nodeArgs], {
    cwd: options.cwd,
    env: { ...baseEnv(), ...options.env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  running.add(child);
  const output = outputTail(child);
  let spawnError: Error | undefined;
  child.once("error", (error) => {
    spawnError = error;
  });

  const baseURL = `http://${HOST}:${options.port}`;
  const server: ServerProcess = {
    name: options.name,
    baseURL,
    pid: child.pid,
    output,
    stop: () => stopChild(child),
  };

  const deadline = Date.now() + (options.readyTimeoutMs ?? 20_000);
  const maxAttempts = Math.ceil((options.readyTimeoutMs ?? 20_000) / 50) + 1;
  for (let attempt = 0; attempt < maxAttempts && Date.now() < deadline; attempt += 1) {
    if (spawnError !== undefined || !isAlive(child)) {
      await stopChild(child);
      const reason =
        spawnError?.message ?? `exited with code ${child.exitCode ?? child.signalCode}`;
      throw new Error(
        `${options.name} ${reason} before it was ready (${reasonIn(output())}); its output:\n${output().trim()}`,
      );
    }
    try {
      const response = await fetch(`${baseURL}${options.readyPath}`, {
        signal: AbortSignal.timeout(1000),
      });
      const body = await response.text();
      if (response.status === 200 && (options.isReady?.(body) ?? true)) return server;
    } catch {
      // Not listening yet.
    }
    await sleep(50);
  }
  await stopChild(child);
  throw new Error(
    `${options.name} was not ready within ${options.readyTimeoutMs ?? 20_000} ms:\n${output().trim()}`,
  );
}
