/** The levels `SVC_LOG_LEVEL` accepts, lowest first; `silent` logs nothing. */
export const LOG_LEVELS = ["trace", "debug", "info", "warn", "error", "fatal", "silent"] as const;

/** One of `LOG_LEVELS`. */
export type LogLevel = (typeof LOG_LEVELS)[number];

/** `json`: one JSON object per line (production); `pretty`: one readable line (dev mode). */
export type LogFormat = "json" | "pretty";
