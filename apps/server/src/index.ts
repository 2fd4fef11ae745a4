export type { FunctionCaller } from "@svc/functions/express";
export { type App, type AppOptions, createApp } from "./app.js";
export {
  ConfigError,
  ConfigErrors,
  type ParseConfigOptions,
  parseConfig,
  type ServerConfig,
} from "./config.js";
export {
  type ErrorBody,
  ServerError,
  type ServerErrorCode,
  serverErrorCodes,
  toErrorResponse,
} from "./errors.js";
export { type RunningServer, startServer } from "./start-server.js";
