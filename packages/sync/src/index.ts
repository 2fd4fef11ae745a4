export {
  CHANGE_LOG_LOCK_KEY,
  type ChangeLog,
  type ChangeLogOptions,
  createChangeLog,
  DEFAULT_MAX_AGE_MS,
  DEFAULT_MAX_ENTRIES,
  type LogBounds,
  type LogEntry,
  type LoggedChange,
  type ResetEntry,
  type RetentionOptions,
} from "./change-log.js";
export { createSync, type PullResult, type Sync, type SyncOptions } from "./create-sync.js";
export {
  DEFAULT_PULL_LIMIT,
  formatCursor,
  MAX_PULL_LIMIT,
  type PullQuery,
  parsePullQuery,
  pullQuerySchema,
} from "./cursor.js";
export { SyncError, type SyncErrorCode, syncErrorCodes } from "./errors.js";
export { startPruning } from "./prune-timer.js";
export {
  CHANGES_TABLE,
  type ChangesTable,
  type SyncTables,
  syncMigrations,
} from "./tables.js";
export {
  cachedExistsResolver,
  type PulledChange,
  type ReadPolicies,
  visibleChange,
} from "./visibility.js";
