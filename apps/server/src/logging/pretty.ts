import type { DestinationStream } from "pino";

const LEVEL_COLORS: Readonly<Record<string, string>> = {
  trace: "\x1b[90m",
  debug: "\x1b[36m",
  info: "\x1b[32m",
  warn: "\x1b[33m",
  error: "\x1b[31m",
  fatal: "\x1b[41m\x1b[97m",
};
const DIM = "\x1b[2m";
const RESET = "\x1b[0m";

/** A field's value as `key=value` shows it: bare when it has no space, else JSON-quoted. */
function showValue(value: unknown): string {
  if (typeof value === "string") return /^[^\s"=]+$/.test(value) ? value : JSON.stringify(value);
  if (typeof value === "object" && value !== null) return JSON.stringify(value);
  return String(value);
}

/** The stack (or message) of a serialized `err`, each line indented under the entry. */
function showError(err: unknown): string {
  if (typeof err !== "object" || err === null) return "";
  const { stack, message, type } = err as { stack?: unknown; message?: unknown; type?: unknown };
  const text =
    typeof stack === "string" ? stack : `${String(type ?? "Error")}: ${String(message ?? "")}`;
  return `\n${text
    .split("\n")
    .map((line) => `    ${line}`)
    .join("\n")}`;
}

/**
 * One JSON log line as a line a person reads:
 * `12:04:31.512 INFO  request POST /api/fn/:name 200 requestId=… durationMs=1.2`,
 * then an error's stack, indented. A line that is not JSON passes as it is.
 */
export function formatPretty(line: string, colors: boolean): string {
  let entry: Record<string, unknown>;
  try {
    entry = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return line;
  }
  const { level, time, msg, err, ...fields } = entry;
  const label = String(level ?? "info");
  const clock = typeof time === "string" ? time.slice(11, 23) : "";
  const levelText = label.toUpperCase().padEnd(5);
  const head = colors
    ? `${DIM}${clock}${RESET} ${LEVEL_COLORS[label] ?? ""}${levelText}${RESET}`
    : `${clock} ${levelText}`;
  const rest = Object.entries(fields)
    .map(([key, value]) => (colors ? `${DIM}${key}=${RESET}` : `${key}=`) + showValue(value))
    .join(" ");
  const message = typeof msg === "string" ? msg : "";
  return `${head} ${message}${rest === "" ? "" : ` ${rest}`}${showError(err)}\n`;
}

/**
 * A pino destination that writes each line pretty-printed to `out`: the
 * built-in dev-mode format, in process (no worker thread, no extra
 * dependency).
 */
export function createPrettyStream(
  out: DestinationStream & { flush?: () => void },
  options: { readonly colors: boolean },
): DestinationStream & { flush(): void } {
  return {
    write(line: string): void {
      out.write(formatPretty(line, options.colors));
    },
    flush(): void {
      out.flush?.();
    },
  };
}
