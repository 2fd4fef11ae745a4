import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import {
  closeSync,
  fstatSync,
  mkdtempSync,
  openSync,
  readFileSync,
  readSync,
  rmSync,
} from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";

/** The loopback address every server binds to and the load generator calls. */
export const HOST = "127.0.0.1";

const OUTPUT_LIMIT = 16_384;
const running = new Set<ChildProcess>();
/** The folder each running child writes its output into, removed when it stops. */
const outputDirs = new Map<ChildProcess, string>();

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
  /**
   * A program and its arguments to run Node.js under (valgrind, for one):
   * the child is `wrapper... node nodeArgs...`, with the wrapper's pid.
   */
  readonly wrapper?: readonly string[];
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

/**
 * The last `limit` bytes of a file, read when asked. A server writes its
 * output (the access log among it) straight into a file rather than a pipe,
 * so the bench process, which is also the load generator, is not woken to
 * read every log line while it measures.
 */
function fileTail(path: string, limit = OUTPUT_LIMIT): string {
  let fd: number;
  try {
    fd = openSync(path, "r");
  } catch {
    return "";
  }
  try {
    const size = fstatSync(fd).size;
    const length = Math.min(size, limit);
    const buffer = Buffer.alloc(length);
    readSync(fd, buffer, 0, length, size - length);
    return buffer.toString("utf8");
  } finally {
    closeSync(fd);
  }
}

function removeOutput(child: ChildProcess): void {
  const dir = outputDirs.get(child);
  if (dir === undefined) return;
  outputDirs.delete(child);
  rmSync(dir, { recursive: true, force: true });
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
    removeOutput(child);
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
  const outputDir = mkdtempSync(join(tmpdir(), "svc-bench-output-"));
  const outputPath = join(outputDir, "output.log");
  const outputFd = openSync(outputPath, "w");
  let child: ChildProcess;
  try {
    const [program, ...wrapperArgs] = options.wrapper ?? [process.execPath];
    const args =
      options.wrapper === undefined
        ? [...options.nodeArgs]
        : [...wrapperArgs, process.execPath, ...options.nodeArgs];
    child = spawn(program ?? process.execPath, args, {
      cwd: options.cwd,
      env: { ...baseEnv(), ...options.env },
      stdio: ["ignore", outputFd, outputFd],
    });
  } finally {
    // The child holds its own copy of the descriptor.
    closeSync(outputFd);
  }
  running.add(child);
  outputDirs.set(child, outputDir);
  const output = () => fileTail(outputPath);
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
    stop: async () => {
      await stopChild(child);
      removeOutput(child);
    },
  };

  const deadline = Date.now() + (options.readyTimeoutMs ?? 20_000);
  const maxAttempts = Math.ceil((options.readyTimeoutMs ?? 20_000) / 50) + 1;
  for (let attempt = 0; attempt < maxAttempts && Date.now() < deadline; attempt += 1) {
    if (spawnError !== undefined || !isAlive(child)) {
      await stopChild(child);
      const said = output();
      removeOutput(child);
      const reason =
        spawnError?.message ?? `exited with code ${child.exitCode ?? child.signalCode}`;
      throw new Error(
        `${options.name} ${reason} before it was ready (${reasonIn(said)}); its output:\n${said.trim()}`,
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
  const said = output();
  removeOutput(child);
  throw new Error(
    `${options.name} was not ready within ${options.readyTimeoutMs ?? 20_000} ms:\n${said.trim()}`,
  );
}
