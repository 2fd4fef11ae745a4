import {
  commonError,
  commonErrors,
  defineErrors,
  type ErrorTable,
  schemaErrorCodes,
} from "@svc/schema";

/**
 * Every failure @svc/store reports, keyed by a stable code. Codes with a
 * `status` are wire errors: their message is safe to send to API clients.
 * Codes without one are local (a programmer or deployment mistake) and stop
 * the caller instead. The codes other packages raise too come from
 * @svc/schema: the common ones, with the store's wording where its clients
 * have always read it, and `INVALID_ID` from the schema's own table.
 */
export const storeErrorCodes = {
  ...commonErrors("ENTITY_NOT_FOUND"),
  ...commonError("NOT_FOUND", "The row does not exist."),
  INVALID_ID: schemaErrorCodes.INVALID_ID,
  INVALID_FIELD: { status: 400, message: "A field has an invalid value." },
  UNKNOWN_FIELD: { status: 400, message: "The entity has no such field." },
  MISSING_FIELD: { status: 400, message: "A required field is missing." },
  FIELD_TOO_LARGE: { status: 413, message: "A field value is larger than the field allows." },
  ROW_TOO_LARGE: { status: 413, message: "The row is larger than the store allows." },
  OWNER_MISMATCH: { status: 403, message: "The owner field must be the caller's user id." },
  OWNER_IMMUTABLE: { status: 400, message: "The owner of a row cannot be changed." },
  UNIQUE_VIOLATION: { status: 409, message: "A row with this value already exists." },
  INVALID_REFERENCE: { status: 400, message: "A field references a row that does not exist." },
  ROW_REFERENCED: { status: 409, message: "Other rows still reference this row." },
  ...commonError("INVALID_QUERY", "The query is invalid."),
  INVALID_CURSOR: { status: 400, message: "The cursor is invalid." },
  // POLICY_DENIED for reads and writes; the rest for the entity and batch
  // routes of @svc/store/express.
  ...commonErrors(
    "POLICY_DENIED",
    "INVALID_JSON",
    "PAYLOAD_TOO_LARGE",
    "INVALID_BATCH",
    "INVALID_TOKEN",
    "ADMIN_REQUIRED",
  ),
  INVALID_IDEMPOTENCY_KEY: {
    status: 400,
    message: "The Idempotency-Key header must be 1 to 255 printable ASCII characters.",
  },
  IDEMPOTENCY_KEY_REUSED: {
    status: 409,
    message: "This Idempotency-Key was already used for a different request.",
  },
  IDEMPOTENCY_KEY_IN_PROGRESS: {
    status: 409,
    message: "A request with this Idempotency-Key is still running.",
  },
  DATABASE_ERROR: { status: 500, message: "The database could not complete the request." },
  STORAGE_FULL: { status: 507, message: "The server's storage is full; try again later." },
  TRANSACTION_FINISHED: {
    status: undefined,
    message: "The transaction has already finished; use the writer only inside its work function.",
  },
  NESTED_TRANSACTION: {
    status: undefined,
    message:
      "The store is used directly inside one of its own transactions; use the writer passed to the work function.",
  },
  MIGRATION_FAILED: { status: undefined, message: "The database schema could not be migrated." },
  INVALID_OPTION: { status: undefined, message: "An option of createStore is invalid." },
} as const satisfies ErrorTable;

/** A stable @svc/store error code. */
export type StoreErrorCode = keyof typeof storeErrorCodes;

/**
 * The single error class of @svc/store, made by `defineErrors` from
 * `storeErrorCodes`; tell cases apart by `code`. Wire errors carry `status`
 * and `expose: true`; local ones have no status (`expose: false`). The
 * message never holds SQL or driver text; the driver's error, when there is
 * one, is kept as `cause`.
 *
 * @example
 * try {
 *   await store.transaction(auth, (db) => db.insert("Todo", { title: 1 }));
 * } catch (error) {
 *   if (error instanceof StoreError && error.code === "INVALID_FIELD") console.log(error.message);
 * }
 */
export class StoreError extends defineErrors("StoreError", storeErrorCodes) {}

const PLAIN_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;

/**
 * A caller-supplied entity or field name, fit to quote in a message: the name
 * itself when it looks like an identifier, otherwise a placeholder (so
 * messages never echo arbitrary text).
 */
export function nameForMessage(name: unknown): string {
  return typeof name === "string" && PLAIN_NAME.test(name) ? name : "(an invalid name)";
}
