export { type App, type AppOptions, createApp } from "./app.js";
export {
  adminTokenResolver,
  type BearerResolver,
  resolveAuthorization,
} from "./auth/resolve-bearer.js";
export { ConfigError, parseConfig, type ServerConfig } from "./config.js";
export {
  type ErrorEnvelope,
  ServerError,
  type ServerErrorCode,
  serverErrorCodes,
  toErrorResponse,
} from "./errors.js";
export type { FunctionCaller } from "./http/routes/functions.js";
export { type RunningServer, startServer } from "./start-server.js";
