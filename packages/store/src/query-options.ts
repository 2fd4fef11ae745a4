import { checkFieldValue, isValidId } from "@svc/schema";
import type { CursorCodec } from "./cursor.js";
import type { EntityModel, FieldModel } from "./entity-model.js";
import { nameForMessage, StoreError } from "./errors.js";
import type { QueryOptions } from "./types.js";

/** Default page size of a list read. */
export const DEFAULT_LIMIT = 100;
/** Largest page size of a list read. */
export const MAX_LIMIT = 1000;

/** A list read, checked against its entity, with values encoded for the database. */
export interface NormalizedQuery {
  /** Equality filters; a null value means IS NULL. */
  readonly filters: readonly { readonly column: string; readonly value: unknown }[];
  /** The sort field; null when sorting by id alone. */
  readonly orderField: FieldModel | null;
  readonly direction: "asc" | "desc";
  /** `field:direction`, what a cursor must match. */
  readonly order: string;
  readonly limit: number;
  /** The position after which the page starts (encoded sort value and id). */
  readonly after: { readonly value: unknown; readonly id: string } | null;
}

function invalidQuery(message: string): StoreError {
  return new StoreError("INVALID_QUERY", { message });
}

function invalidCursor(): StoreError {
  return new StoreError("INVALID_CURSOR", { message: "The cursor is not one this API returned." });
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A `where` option checked against its entity, with values encoded for the database. */
export function normalizeFilters(model: EntityModel, where: unknown): NormalizedQuery["filters"] {
  if (where === undefined) return [];
  if (!isPlainObject(where)) throw invalidQuery("The where option must map field names to values.");
  const filters: { column: string; value: unknown }[] = [];
  for (const [name, value] of Object.entries(where)) {
    if (value === undefined) continue;
    if (name === "id") {
      if (!isValidId(value)) throw invalidQuery("The id filter must be a record id.");
      filters.push({ column: "id", value });
      continue;
    }
    const field = model.fields.get(name);
    if (field === undefined)
      throw invalidQuery(`${model.name} has no field ${nameForMessage(name)} to filter on.`);
    if (field.def.type === "json")
      throw invalidQuery(`${field.label} is json and cannot be filtered.`);
    if (value === null) {
      filters.push({ column: name, value: null });
      continue;
    }
    const checked = checkFieldValue(field.def, value);
    if (!checked.ok)
      throw invalidQuery(`The filter value of ${field.label} ${checked.issue.reason}.`);
    filters.push({ column: name, value: field.encode(checked.value) });
  }
  return filters;
}

function normalizeOrder(
  model: EntityModel,
  orderBy: unknown,
): { field: FieldModel | null; direction: "asc" | "desc" } {
  if (orderBy === undefined) return { field: null, direction: "asc" };
  if (!isPlainObject(orderBy))
    throw invalidQuery("The orderBy option must be { field, direction }.");
  const { field: name, direction = "asc" } = orderBy;
  if (direction !== "asc" && direction !== "desc") {
    throw invalidQuery("The sort direction must be asc or desc.");
  }
  if (name === "id") return { field: null, direction };
  const field = typeof name === "string" ? model.fields.get(name) : undefined;
  if (field === undefined)
    throw invalidQuery(`${model.name} has no field ${nameForMessage(name)} to sort by.`);
  if (field.def.type === "json") throw invalidQuery(`${field.label} is json and cannot be sorted.`);
  return { field, direction };
}

function normalizeLimit(limit: unknown): number {
  if (limit === undefined) return DEFAULT_LIMIT;
  if (typeof limit !== "number" || !Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT) {
    throw invalidQuery(`The limit must be an integer from 1 to ${MAX_LIMIT}.`);
  }
  return limit;
}

function normalizeAfter(
  cursors: CursorCodec,
  model: EntityModel,
  cursor: unknown,
  sort: { readonly field: FieldModel | null; readonly order: string },
): NormalizedQuery["after"] {
  const { field, order } = sort;
  if (cursor === undefined || cursor === null) return null;
  const position = cursors.decode(model.name, cursor);
  if (position === null || !isValidId(position.id)) throw invalidCursor();
  if (position.order !== order) {
    throw new StoreError("INVALID_CURSOR", {
      message: "The cursor belongs to a different sort order; start again without it.",
    });
  }
  if (field === null || position.value === null) return { value: null, id: position.id };
  const checked = checkFieldValue(field.def, position.value);
  if (!checked.ok) throw invalidCursor();
  return { value: field.encode(checked.value), id: position.id };
}

/**
 * Checks the options of a list read against the entity and encodes their
 * values. Throws `INVALID_QUERY` for an unknown or json field, a wrongly
 * typed filter value or a limit outside 1..1000, and `INVALID_CURSOR` for a
 * cursor that `cursors` did not sign for this entity (malformed, edited,
 * truncated) or that was made for another sort order.
 */
export function normalizeQuery(
  model: EntityModel,
  cursors: CursorCodec,
  options: QueryOptions = {},
): NormalizedQuery {
  if (!isPlainObject(options)) throw invalidQuery("The query options must be an object.");
  const filters = normalizeFilters(model, options.where);
  const { field, direction } = normalizeOrder(model, options.orderBy);
  const order = `${field?.name ?? "id"}:${direction}`;
  const limit = normalizeLimit(options.limit);
  const after = normalizeAfter(cursors, model, options.cursor, { field, order });
  return { filters, orderField: field, direction, order, limit, after };
}
