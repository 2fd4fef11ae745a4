export {
  type BuildEdgeOptions,
  type BuildEdgeResult,
  buildEdgeApp,
} from "./build/build-edge.js";
export { createD1Dialect, EDGE_TABLES_SQL, openD1 } from "./d1/d1-dialect.js";
export { isWriteConflict, WriteConflictError } from "./d1/d1-errors.js";
export type { D1Database, D1PreparedStatement, D1Result } from "./d1/d1-types.js";
export {
  createEdgeApp,
  type EdgeApp,
  type EdgeAppDefinition,
  type EdgeAppOptions,
} from "./edge-app.js";
export { type EdgeConfig, EdgeConfigError, type EdgeEnv, parseEdgeConfig } from "./edge-config.js";
export { EdgeError, type EdgeErrorCode, edgeErrorCodes } from "./errors.js";
export { MAX_WRITE_ATTEMPTS } from "./retry.js";
export { UNAVAILABLE_ON_EDGE } from "./routes/unavailable.js";
export { createWorker, type EdgeWorker } from "./worker.js";
