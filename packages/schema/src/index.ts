export {
  type AuthContext,
  type AuthVia,
  adminAuth,
  anonymousAuth,
  authContextSchema,
  authViaSchema,
  createAuthContext,
  isRealSession,
} from "./auth-context.js";
export {
  type CommonErrorCode,
  commonError,
  commonErrorCodes,
  commonErrors,
} from "./common-errors.js";
export { ConfigError } from "./config-error.js";
export {
  type DefinedError,
  type DefinedErrorClass,
  type DefinedErrorOptions,
  defineErrors,
  type ErrorDefinition,
  type ErrorTable,
  type TableStatus,
} from "./define-errors.js";
export {
  type AppDefinition,
  type AppManifest,
  defineApp,
  type InferEntities,
  type InferEntityFields,
  type PolicyRules,
  policy,
} from "./dsl-app.js";
export {
  Entity,
  type EntityOptions,
  entity,
  type FieldBuilders,
  type IndexOptions,
  type InferFieldValue,
  type InferRow,
} from "./dsl-entity.js";
export {
  type AnyFieldBuilder,
  DatetimeFieldBuilder,
  type EntityInput,
  FieldBuilder,
  type FieldInput,
  field,
  JsonFieldBuilder,
  StringFieldBuilder,
} from "./dsl-field.js";
export {
  type ManifestIssue,
  SchemaError,
  type SchemaErrorCode,
  schemaErrorCodes,
} from "./errors.js";
export { assertValidId, generateId, isValidId } from "./ids.js";
export { exceedsDepth, MAX_JSON_DEPTH } from "./json-depth.js";
export {
  DEFAULT_ROOM_MAX_MEMBERS,
  type EntityDef,
  entitySchema,
  type FieldDef,
  type FieldKind,
  fieldKinds,
  fieldSchema,
  findEntity,
  findRoom,
  formatPath,
  type IndexDef,
  indexSchema,
  MAX_DECLARED_FIELD_BYTES,
  type Manifest,
  type ManifestInput,
  manifestSchema,
  type OrgMembershipConfig,
  orgMembershipOf,
  orgMembershipSchema,
  ownerField,
  type PolicyDef,
  parseManifest,
  policySchema,
  type RoomDef,
  type RoomInput,
  roomSchema,
} from "./manifest.js";
export { didYouMean, nearest } from "./manifest-issues.js";
export {
  describeMigrationStep,
  diffTablePlans,
  type MigrationStep,
  type PlanDiff,
  type PlannedColumn,
  type PlannedIndex,
  type PlannedTable,
  planTables,
  type TablePlan,
} from "./plan.js";
export type {
  RoomHandle,
  RoomLogic,
  RoomMember,
  RoomMessage,
  RoomTick,
} from "./room-logic.js";
export { isStorageFull, STORAGE_FULL, STORAGE_FULL_RETRY_AFTER_SECS } from "./storage-full.js";
export { checkFieldValue, normalizeDatetime, type ValueCheck, type ValueIssue } from "./values.js";
export {
  type ErrorBody,
  type ErrorResponse,
  isWireError,
  toErrorResponse,
  type WireError,
} from "./wire-error.js";
