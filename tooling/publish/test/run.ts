import { type ChildProcess, execFile, spawn } from "node:child_process";
import { promisify } from "node:util";

const execFileAsync = promisify(execFile);

/** Runs a command to completion; rejects with its output when it fails. */
export async function run(
  command: string,
  args: readonly string[],
  options: { cwd: string; env: NodeJS.ProcessEnv },
): Promise<string> {
  try {
    const { stdout } = await execFileAsync(command, [...args], {
      ...options,
      maxBuffer: 64 * 1024 * 1024,
    });
    return stdout;
  } catch (error) {
    const failed = error as { stdout?: string; stderr?: string; message: string };
    throw new Error(
      `${command} ${args.join(" ")} failed in ${options.cwd}:\n${failed.stderr ?? ""}${failed.stdout ?? ""}`,
    );
  }
}

/** Runs `work` on every item, at most `limit` at a time. */
export async function inParallel<T, R>(
  items: readonly T[],
  limit: number,
  work: (item: T) => Promise<R>,
): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const lanes = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index] as T);
    }
  });
  await Promise.all(lanes);
  return results;
}

/** A long-running command (a server) in a process group of its own. */
export interface Started {
  /** The first match of the pattern in its output. */
  readonly match: RegExpMatchArray;
  stop(): Promise<void>;
}

/**
 * Starts `command` and waits until its output matches `ready` (rejecting
 * with the output when it exits first or after `timeoutMs`). `stop` ends
 * the process group it started, and only that.
 */
export async function start(
  command: string,
  args: readonly string[],
  options: { cwd: string; env: NodeJS.ProcessEnv; ready: RegExp; timeoutMs: number },
): Promise<Started> {
  const child: ChildProcess = spawn(command, [...args], {
    cwd: options.cwd,
    env: options.env,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const stop = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null && child.pid !== undefined) {
      try {
        process.kill(-child.pid, "SIGTERM");
      } catch {
        // already gone
      }
      await exited;
    }
  };
  let output = "";
  try {
    const match = await new Promise<RegExpMatchArray>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`${command} ${args.join(" ")}: not ready in time:\n${output}`)),
        options.timeoutMs,
      );
      const read = (chunk: Buffer): void => {
        output += chunk.toString();
        const found = output.match(options.ready);
        if (found !== null) {
          clearTimeout(timer);
          resolve(found);
        }
      };
      child.stdout?.on("data", read);
      child.stderr?.on("data", read);
      child.once("exit", (code) => {
        clearTimeout(timer);
        reject(new Error(`${command} ${args.join(" ")} exited (${code}):\n${output}`));
      });
    });
    return { match, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
