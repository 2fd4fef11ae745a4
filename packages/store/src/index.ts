// The caller type lives in @svc/schema; re-exported because every store call takes one.
export {
  type AuthContext,
  adminAuth,
  anonymousAuth,
  createAuthContext,
} from "@svc/schema";
export type { AccessDecision, AccessOperation } from "./access.js";
export {
  type ChangeBus,
  createMemoryChangeBus,
  type MemoryChangeBusOptions,
  notifyListeners,
} from "./change-bus.js";
export { type CreateStoreOptions, createStore } from "./create-store.js";
export type { EntityTables, StoreDatabase } from "./database.js";
export {
  type Dialect,
  type Lockable,
  STORE_DIALECTS,
  type StoreDialect,
} from "./dialect/dialect.js";
export { dialectFor, isStoreDialect } from "./dialect/dialect-for.js";
export { postgresDialect } from "./dialect/pg.js";
export { sqliteDialect } from "./dialect/sqlite.js";
export { isUniqueViolation } from "./driver-errors.js";
export { StoreError, type StoreErrorCode, storeErrorCodes } from "./errors.js";
export { DEFAULT_MAX_FIELD_BYTES, DEFAULT_MAX_ROW_BYTES } from "./field-size.js";
export {
  IDEMPOTENCY_TABLE,
  idempotencyMigrations,
  type RecordedResponse,
} from "./idempotency.js";
export {
  ACTION_LEASE_MS,
  createIdempotency,
  IDEMPOTENCY_RETENTION_MS,
  type Idempotency,
  type IdempotencyOptions,
  IdempotentReplay,
  type IdempotentWrite,
  idempotentWriteOf,
} from "./idempotent-writes.js";
export { COMMIT_WITH_THIS, type RecordOptions } from "./last-statement.js";
export { createMembershipLookup, type MembershipLookup } from "./memberships.js";
export {
  type BearerRequestInfo,
  type CloseOptions,
  type ComposedModules,
  composeModules,
  type ModuleBearerResolver,
  type ModuleLog,
  type SvcModule,
  type SvcRuntime,
} from "./module.js";
export type {
  PackageMigration,
  PackageMigrationContext,
  PackageMigrations,
} from "./package-migrations.js";
export { DEFAULT_LIMIT, MAX_LIMIT } from "./query-options.js";
export {
  type BatchOperation,
  insertBatch,
  MAX_BATCH_OPERATIONS,
  parseBatchBody,
  parseListQuery,
  parseRowFields,
} from "./rest-input.js";
export type {
  BeforeDeleteHook,
  ChangeEvent,
  ChangeListener,
  CountOptions,
  EntityReader,
  EntityWriter,
  FileReferenceCheck,
  FrameworkTransaction,
  JSONPage,
  MigrateOptions,
  MigrationReport,
  Page,
  QueryOptions,
  Row,
  RowInput,
  Store,
} from "./types.js";
