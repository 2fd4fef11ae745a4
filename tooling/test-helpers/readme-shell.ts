import { spawn } from "node:child_process";

// Runs a README's shell blocks as a reader pastes them, and holds each
// command to the answer the README prints under it.
//
// The README's convention: a command is one or more lines (a line ending in
// `\`, or an open single-quoted string, continues it); the `#` lines right
// under a command, with no blank line between, are what it prints. In those,
// `…` stands for anything, a run of digits for any digits (ports, counts,
// times, codes), and a trailing remark after two or more spaces in
// parentheses is prose. Other `#` lines are prose.

/** One command of a README block and what the README says it prints. */
export interface ShellStep {
  /** The command as written (its lines joined with newlines). */
  readonly command: string;
  /** The lines the README shows under it, without `# ` and remarks; may be empty. */
  readonly expected: readonly string[];
}

/** What one step printed (stdout and stderr together) and its exit status. */
export interface ShellStepResult {
  readonly step: ShellStep;
  readonly output: string;
  readonly status: number;
}

/**
 * The bodies of the ```sh blocks of `markdown` under the `## ` heading
 * named `section` (up to the next `## ` heading).
 */
export function shellBlocks(markdown: string, section: string): string[] {
  const start = markdown.indexOf(`\n## ${section}\n`);
  if (start === -1) throw new Error(`no "## ${section}" section`);
  const next = markdown.indexOf("\n## ", start + 1);
  const body = markdown.slice(start, next === -1 ? undefined : next);
  return [...body.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map((match) => match[1] ?? "");
}

function countQuotes(line: string): number {
  return [...line].filter((char) => char === "'").length;
}

/** Splits a block into commands, each with the output lines the README shows under it. */
export function parseShellSteps(block: string): ShellStep[] {
  const steps: { command: string[]; expected: string[] }[] = [];
  const lines = block.split("\n");
  let index = 0;
  while (index < lines.length) {
    const line = lines[index] ?? "";
    if (line.trim() === "" || line.startsWith("#")) {
      index += 1;
      continue;
    }
    const command = [line];
    let quotes = countQuotes(line);
    index += 1;
    while ((quotes % 2 === 1 || (command.at(-1) ?? "").endsWith("\\")) && index < lines.length) {
      const more = lines[index] ?? "";
      command.push(more);
      quotes += countQuotes(more);
      index += 1;
    }
    const expected: string[] = [];
    while (index < lines.length && (lines[index] ?? "").startsWith("#")) {
      const text = (lines[index] ?? "").replace(/^# ?/, "");
      expected.push(text.replace(/ {2,}\(.*\)$/, ""));
      index += 1;
    }
    steps.push({ command, expected });
  }
  return steps.map((step) => ({ command: step.command.join("\n"), expected: step.expected }));
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** The pattern of one expected line: `…` is anything, digits are any digits. */
function expectedLinePattern(expected: string): RegExp {
  const pattern = expected
    .split("…")
    .map((part) =>
      part
        .split(/(\d+)/)
        .map((piece, i) => (i % 2 === 1 ? "\\d+" : escapeRegExp(piece)))
        .join(""),
    )
    .join(".*");
  return new RegExp(`^${pattern}$`);
}

/**
 * Whether `output` shows the expected lines, in order (other lines may come
 * between them: a log line, a tool's banner on stderr).
 */
export function showsExpected(output: string, expected: readonly string[]): boolean {
  const lines = output.split(/\r?\n/).map((line) => line.trimEnd());
  let at = 0;
  for (const line of expected) {
    const pattern = expectedLinePattern(line.trimEnd());
    while (at < lines.length && !pattern.test(lines[at] ?? "")) at += 1;
    if (at === lines.length) return false;
    at += 1;
  }
  return true;
}

const MARKER = "@@readme-step";

/**
 * Runs the steps in one bash process (so variables and functions carry
 * over, as in a reader's terminal), in `cwd` with exactly `env`, and
 * answers each step's output and exit status. Background jobs are waited
 * for at the end; the whole run is killed after `timeoutMs`.
 */
export async function runShellSteps(
  steps: readonly ShellStep[],
  options: { cwd: string; env: Readonly<Record<string, string>>; timeoutMs?: number },
): Promise<ShellStepResult[]> {
  const script = [
    "exec 2>&1",
    ...steps.flatMap((step, index) => [
      step.command,
      `printf '\\n${MARKER} %d %d@@\\n' ${index} $?`,
    ]),
    "wait",
  ].join("\n");
  const child = spawn("bash", ["--noprofile", "--norc", "-c", script], {
    cwd: options.cwd,
    env: options.env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout.on("data", (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr.on("data", (chunk: Buffer) => {
    output += chunk.toString();
  });
  const timer = setTimeout(() => child.kill("SIGKILL"), options.timeoutMs ?? 60_000);
  await new Promise<void>((resolveExit) => child.once("exit", () => resolveExit()));
  clearTimeout(timer);
  const results: ShellStepResult[] = [];
  let rest = output;
  const marker = new RegExp(`\\n?${MARKER} (\\d+) (\\d+)@@\\n`);
  for (const step of steps) {
    const match = marker.exec(rest);
    if (match === null) {
      results.push({ step, output: rest, status: -1 });
      break;
    }
    results.push({ step, output: rest.slice(0, match.index), status: Number(match[2]) });
    rest = rest.slice(match.index + match[0].length);
  }
  return results;
}
