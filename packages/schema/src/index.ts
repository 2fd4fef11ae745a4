export {
  type ManifestIssue,
  SchemaError,
  type SchemaErrorCode,
  schemaErrorCodes,
} from "./errors.js";
export { assertValidId, generateId, isValidId } from "./ids.js";
export {
  type EntityDef,
  entitySchema,
  type FieldDef,
  type FieldKind,
  fieldKinds,
  fieldSchema,
  findEntity,
  formatPath,
  type IndexDef,
  indexSchema,
  type Manifest,
  type ManifestInput,
  manifestSchema,
  ownerField,
  type PolicyDef,
  parseManifest,
  policySchema,
} from "./manifest.js";
