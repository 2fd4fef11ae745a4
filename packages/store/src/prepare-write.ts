import type { AuthContext } from "@svc/schema";
import { checkFieldValue, generateId, isValidId } from "@svc/schema";
import type { EntityModel, FieldModel } from "./entity-model.js";
import { nameForMessage, StoreError } from "./errors.js";
import { exceedsBytes, fieldTooLarge, rowTooLarge, totalExceedsBytes } from "./field-size.js";
import type { Row } from "./types.js";

function asObject(data: unknown, what: string): Record<string, unknown> {
  if (typeof data !== "object" || data === null || Array.isArray(data)) {
    throw new StoreError("INVALID_FIELD", {
      message: `The ${what} must be an object of field values.`,
    });
  }
  return data as Record<string, unknown>;
}

/** A path or custom id, checked. */
export function checkId(id: unknown): string {
  if (isValidId(id)) return id;
  throw new StoreError("INVALID_ID", {
    message: "The id must be 40 lowercase hexadecimal characters.",
  });
}

function checkValue(field: FieldModel, value: unknown): unknown {
  if (value === null && !field.def.optional) {
    throw new StoreError("INVALID_FIELD", { message: `Field ${field.label} cannot be null.` });
  }
  const checked = checkFieldValue(field.def, value);
  if (!checked.ok) {
    throw new StoreError("INVALID_FIELD", {
      message: `Field ${field.label} ${checked.issue.reason}.`,
    });
  }
  return checked.value;
}

/** Checks every given field; returns normalized values keyed by field name. */
function checkGivenFields(
  model: EntityModel,
  input: Record<string, unknown>,
): Map<string, unknown> {
  const given = new Map<string, unknown>();
  for (const name of Object.keys(input)) {
    if (name === "id") continue;
    if (!model.fields.has(name)) {
      throw new StoreError("UNKNOWN_FIELD", {
        message: `${model.name} has no field named ${nameForMessage(name)}.`,
      });
    }
  }
  for (const field of model.fieldList) {
    const value = input[field.name];
    if (value !== undefined) given.set(field.name, checkValue(field, value));
  }
  return given;
}

/**
 * Checks insert data and completes it: a generated id unless a valid one is
 * given, the owner stamped from `auth.userId`, `defaultNow` datetimes from
 * the clock, absent optional fields as null. Returns the row to store, in
 * API form, fields in manifest order.
 */
export function prepareInsert(
  model: EntityModel,
  data: unknown,
  auth: AuthContext,
  now: () => string,
): Row {
  const input = asObject(data, "insert data");
  const id = input.id === undefined ? generateId() : checkId(input.id);
  const given = checkGivenFields(model, input);
  const owner = model.owner;
  if (owner !== undefined && auth.userId !== null) {
    const value = given.get(owner.name);
    if (value !== undefined && value !== auth.userId) {
      throw new StoreError("OWNER_MISMATCH", {
        message: `Field ${owner.label} must be the caller's user id.`,
      });
    }
    given.set(owner.name, auth.userId);
  }
  const row: Record<string, unknown> = { id };
  for (const field of model.fieldList) {
    let value = given.get(field.name);
    if (value === undefined) {
      if (model.defaultNow.includes(field)) value = now();
      else if (field.def.optional) value = null;
      else throw new StoreError("MISSING_FIELD", { message: `Field ${field.label} is required.` });
    }
    row[field.name] = value;
  }
  return row as Row;
}

/**
 * Checks an update's changed fields; returns their normalized values. The
 * id may appear only with the row's own value; the owner may not change.
 */
export function preparePatch(model: EntityModel, id: string, patch: unknown): Map<string, unknown> {
  const input = asObject(patch, "update patch");
  if (input.id !== undefined && input.id !== id) {
    throw new StoreError("INVALID_FIELD", {
      message: `The id of a ${model.name} cannot be changed.`,
    });
  }
  return checkGivenFields(model, input);
}

/** Throws `OWNER_IMMUTABLE` when a patch changes the owner field. */
export function checkOwnerUnchanged(
  model: EntityModel,
  changes: Map<string, unknown>,
  existing: Row,
): void {
  const owner = model.owner;
  if (owner === undefined || !changes.has(owner.name)) return;
  if (changes.get(owner.name) !== existing[owner.name]) {
    throw new StoreError("OWNER_IMMUTABLE", { message: `Field ${owner.label} cannot be changed.` });
  }
}

/** The encoded value of a bounded field, checked against its bound: its text, or null. */
function sizedText(field: FieldModel, encoded: unknown): string | null {
  // String fields encode to themselves, json fields to their JSON text.
  if (field.maxBytes === null || typeof encoded !== "string") return null;
  if (exceedsBytes(encoded, field.maxBytes)) throw fieldTooLarge(field.label, field.maxBytes);
  return encoded;
}

/**
 * A whole row encoded as SQL parameters, keyed by column. Throws
 * `FIELD_TOO_LARGE` for a string or json value past its field's bound and
 * `ROW_TOO_LARGE` when they are past the row's bound together.
 */
export function encodeRow(model: EntityModel, row: Row): Record<string, unknown> {
  const out: Record<string, unknown> = { id: row.id };
  const texts: string[] | null = model.maxRowBytes === null ? null : [];
  for (const field of model.fieldList) {
    const encoded = field.encode(row[field.name]);
    const text = sizedText(field, encoded);
    if (text !== null) texts?.push(text);
    out[field.name] = encoded;
  }
  if (texts !== null && model.maxRowBytes !== null && totalExceedsBytes(texts, model.maxRowBytes)) {
    throw rowTooLarge(model.name, model.maxRowBytes);
  }
  return out;
}

/**
 * Changed fields encoded as SQL parameters, keyed by column. Throws
 * `FIELD_TOO_LARGE` for a string or json value past its field's bound (the
 * row's bound is checked by `checkRowSize` once the row is read).
 */
export function encodeChanges(
  model: EntityModel,
  changes: ReadonlyMap<string, unknown>,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, value] of changes) {
    const field = model.fields.get(name);
    if (field === undefined) continue;
    const encoded = field.encode(value);
    sizedText(field, encoded);
    out[name] = encoded;
  }
  return out;
}

/**
 * Throws `ROW_TOO_LARGE` when the row an update leaves (`existing` with the
 * `encoded` changes) holds more string and json bytes than the row's bound.
 * Free for entities whose field bounds cannot add up past it.
 */
export function checkRowSize(
  model: EntityModel,
  encoded: Readonly<Record<string, unknown>>,
  existing: Row,
): void {
  const max = model.maxRowBytes;
  if (max === null) return;
  const texts: string[] = [];
  for (const field of model.sizedFields) {
    const value = field.name in encoded ? encoded[field.name] : field.encode(existing[field.name]);
    if (typeof value === "string") texts.push(value);
  }
  if (totalExceedsBytes(texts, max)) throw rowTooLarge(model.name, max);
}
