export type { AccessDecision, AccessOperation } from "./access.js";
export {
  type AuthContext,
  adminAuth,
  anonymousAuth,
  createAuthContext,
} from "./auth-context.js";
export { type CreateStoreOptions, createStore } from "./create-store.js";
export type { EntityTables, StoreDatabase, StoreDialect } from "./database.js";
export { StoreError, type StoreErrorCode, storeErrorCodes } from "./errors.js";
export { DEFAULT_LIMIT, MAX_LIMIT } from "./query-options.js";
export type {
  ChangeEvent,
  ChangeListener,
  EntityReader,
  EntityWriter,
  MigrationReport,
  Page,
  QueryOptions,
  Row,
  RowInput,
  Store,
} from "./types.js";
