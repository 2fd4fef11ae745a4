import { readFileSync } from "node:fs";

/**
 * Linux reports a process's CPU times in `/proc/<pid>/stat` in clock ticks
 * of USER_HZ, which is 100 on every architecture Node.js runs on.
 */
const TICKS_PER_SECOND = 100;

/**
 * CPU seconds (user + system) a process has used so far, read from
 * `/proc/<pid>/stat`; undefined where there is no `/proc` (macOS, Windows)
 * or the process is gone. The second field, the command name in
 * parentheses, may hold spaces, so fields are counted after its `)`.
 */
export function processCpuSeconds(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  return cpuSecondsIn(`/proc/${pid}/stat`);
}

/**
 * CPU seconds of a process's main thread only (its thread id is the
 * process id): where its JavaScript runs, apart from the garbage
 * collector's, the compiler's and libuv's helper threads.
 */
export function mainThreadCpuSeconds(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  return cpuSecondsIn(`/proc/${pid}/task/${pid}/stat`);
}

function cpuSecondsIn(path: string): number | undefined {
  let stat: string;
  try {
    stat = readFileSync(path, "utf8");
  } catch {
    return undefined;
  }
  // After the `)`: state is field 3, utime field 14, stime field 15.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  const user = Number(fields[11]);
  const system = Number(fields[12]);
  if (!Number.isFinite(user) || !Number.isFinite(system)) return undefined;
  return (user + system) / TICKS_PER_SECOND;
}
