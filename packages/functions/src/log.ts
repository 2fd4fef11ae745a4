/** Extra fields of a `ctx.log` line: JSON values (an `Error` under `err` keeps its stack). */
export type LogFields = Readonly<Record<string, unknown>>;

/**
 * `ctx.log`: lines in the server's own log, each carrying `fn` (the
 * function's name) and, inside a request, its `requestId`.
 */
export interface FunctionLog {
  debug(message: string, fields?: LogFields): void;
  info(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields): void;
}

/**
 * Where `ctx.log` writes: any logger with pino's `(fields, message)`
 * methods (the svc server passes its own; pino, and loggers shaped like
 * it, fit as they are).
 */
export interface LogSink {
  debug(fields: object, message: string): void;
  info(fields: object, message: string): void;
  warn(fields: object, message: string): void;
  error(fields: object, message: string): void;
}

/** Writes one line per call to the console: what a runner without a `log` option uses. */
export const consoleLogSink: LogSink = {
  debug: (fields, message) => console.debug(message, fields),
  info: (fields, message) => console.info(message, fields),
  warn: (fields, message) => console.warn(message, fields),
  error: (fields, message) => console.error(message, fields),
};

/**
 * The `ctx.log` of function `name`: each line goes to `sink` with the
 * caller's fields and `fn: name` (which a field cannot replace).
 */
export function createFunctionLog(sink: LogSink, name: string): FunctionLog {
  const line =
    (level: keyof LogSink) =>
    (message: string, fields?: LogFields): void => {
      sink[level](fields === undefined ? { fn: name } : { ...fields, fn: name }, String(message));
    };
  return Object.freeze({
    debug: line("debug"),
    info: line("info"),
    warn: line("warn"),
    error: line("error"),
  });
}
