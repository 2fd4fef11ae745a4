// How each bench script runs as a process: its children die with it, a
// signal cleans up before exiting, and a failure is one line, not a stack.
import { BenchConfigError } from "./options.js";

/** An error's message, or the thrown value as text. */
export function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The first line of `text`, cut to 200 characters for a report cell. */
export function oneLine(text: string): string {
  const first = text.split("\n")[0] ?? "";
  return first.length > 200 ? `${first.slice(0, 197)}...` : first;
}

export interface BenchEntry {
  /** The bench; resolves to the exit code. */
  readonly main: () => Promise<number>;
  /** Kills every child process the bench started. */
  readonly killChildren: () => void;
  /** On Ctrl-C or SIGTERM, after the children are killed: removes what the run left (at most 3 s). */
  readonly cleanUp: () => Promise<unknown> | undefined;
  /** Names the bench in the failure line, e.g. "bench" or "fan-out bench". */
  readonly name: string;
}

const CLEAN_UP_DEADLINE_MS = 3000;

/** Runs a bench as the process's entry point and sets its exit code. */
export async function runBench(entry: BenchEntry): Promise<void> {
  process.once("exit", entry.killChildren);
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    process.once(signal, () => {
      entry.killChildren();
      const deadline = new Promise((resolve) => setTimeout(resolve, CLEAN_UP_DEADLINE_MS));
      void Promise.race([entry.cleanUp() ?? Promise.resolve(), deadline])
        .catch(() => {})
        .finally(() => process.exit(130));
    });
  }
  try {
    process.exitCode = await entry.main();
  } catch (error) {
    entry.killChildren();
    process.stderr.write(
      error instanceof BenchConfigError
        ? `bench: ${error.message}\n`
        : `${entry.name} failed: ${message(error)}\n`,
    );
    process.exitCode = 1;
  }
}
