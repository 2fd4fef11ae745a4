import { type DestinationStream, type Logger, pino } from "pino";
import type { LogFormat, LogLevel } from "./levels.js";
import { createPrettyStream } from "./pretty.js";
import { currentRequest } from "./request-context.js";
import { batchedStdout } from "./stdout.js";

/** The server's logger: pino's, so any pino-compatible sink or transport fits. */
export type ServerLogger = Logger;

/** Options of `createLogger`. */
export interface LoggerOptions {
  /** Default `info`. */
  readonly level?: LogLevel;
  /** Default `json`. */
  readonly format?: LogFormat;
  /**
   * Where the lines go. Default standard output, written asynchronously
   * (flushed when the process exits); tests inject a stream to read them.
   */
  readonly destination?: DestinationStream;
  /** Colors in the pretty format. Default: when standard output is a terminal. */
  readonly colors?: boolean;
}

const NO_FIELDS = Object.freeze({});

let lastMs = 0;
let lastField = "";

/**
 * `,"time":"<ISO 8601>"`, made once per millisecond: under load many lines
 * share one, and formatting a date is the costliest part of a line.
 */
function isoTimeField(): string {
  const ms = Date.now();
  if (ms !== lastMs) {
    lastMs = ms;
    lastField = `,"time":"${new Date(ms).toISOString()}"`;
  }
  return lastField;
}

/**
 * Creates the server's logger. Every line carries `level` (its name),
 * `time` (ISO 8601) and `msg`; a line made while a request is handled
 * also carries that request's `requestId` (a job's run its `jobId` and
 * `job`), read from the log context (so package code that logs through a
 * callback gets it too). Errors go in
 * an `err` field (type, message, stack, code).
 *
 * @example
 * const logger = createLogger({ level: "debug", format: "pretty" });
 * logger.info({ port: 4321 }, "listening");
 */
export function createLogger(options: LoggerOptions = {}): ServerLogger {
  const format = options.format ?? "json";
  const out = options.destination ?? batchedStdout();
  return pino(
    {
      level: options.level ?? "info",
      // No pid and hostname on every line: a log shipper adds the host.
      base: undefined,
      timestamp: isoTimeField,
      formatters: { level: (label) => ({ level: label }) },
      // The request's (or job's) fields, as the very object the context
      // holds; merged into a copy (pino's default merge writes into it).
      mixin: () => currentRequest() ?? NO_FIELDS,
      // A line that names its request itself (the access line) needs no copy.
      mixinMergeStrategy: (fields, context) =>
        context === NO_FIELDS || "requestId" in fields
          ? fields
          : Object.assign({}, context, fields),
    },
    format === "pretty"
      ? createPrettyStream(out, { colors: options.colors ?? process.stdout.isTTY === true })
      : out,
  );
}
