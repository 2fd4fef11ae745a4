import { isStorageFull, SchemaError } from "@svc/schema";
import type { EntityModel } from "./entity-model.js";
import { StoreError } from "./errors.js";

/** A driver error, reduced to what the store can explain without quoting it. */
export type DriverFailure =
  | {
      readonly kind: "unique";
      readonly constraint: string | null;
      readonly columns: string[] | null;
    }
  | { readonly kind: "foreignKey" }
  | { readonly kind: "other" };

const SQLITE_UNIQUE = /^UNIQUE constraint failed: (.+)$/;
// Postgres truncates identifiers to 63 bytes; constraint names come back truncated.
const MAX_IDENTIFIER = 63;

function stringProp(error: object, key: string): string | null {
  const value = (error as Record<string, unknown>)[key];
  return typeof value === "string" ? value : null;
}

/** Recognizes unique and foreign-key violations from better-sqlite3 and pg. */
export function classifyDriverError(error: unknown): DriverFailure {
  if (typeof error !== "object" || error === null) return { kind: "other" };
  const code = stringProp(error, "code");
  if (code === "SQLITE_CONSTRAINT_UNIQUE" || code === "SQLITE_CONSTRAINT_PRIMARYKEY") {
    const match = SQLITE_UNIQUE.exec(stringProp(error, "message") ?? "");
    const columns =
      match?.[1]?.split(", ").map((part) => part.slice(part.indexOf(".") + 1)) ?? null;
    return { kind: "unique", constraint: null, columns };
  }
  if (code === "23505")
    return { kind: "unique", constraint: stringProp(error, "constraint"), columns: null };
  if (code === "SQLITE_CONSTRAINT_FOREIGNKEY" || code === "23503") return { kind: "foreignKey" };
  return { kind: "other" };
}

/**
 * True when `error` is a unique violation: the store's own
 * `UNIQUE_VIOLATION`, or a raw better-sqlite3 / pg error from a package's
 * own table (those are not translated). Lets packages that keep tables
 * beside the entities resolve insert races on either dialect.
 */
export function isUniqueViolation(error: unknown): boolean {
  if (error instanceof StoreError) return error.code === "UNIQUE_VIOLATION";
  return classifyDriverError(error).kind === "unique";
}

function uniqueFields(
  model: EntityModel,
  failure: { constraint: string | null; columns: string[] | null },
): string[] {
  if (failure.columns !== null) return failure.columns;
  if (failure.constraint === `${model.name}_pkey`.slice(0, MAX_IDENTIFIER)) return ["id"];
  const index = model.uniqueIndexes.find(
    (candidate) => candidate.name.slice(0, MAX_IDENTIFIER) === failure.constraint,
  );
  return index === undefined ? [] : [...index.columns];
}

/** The 409 for a unique violation, naming the fields involved. */
export function uniqueViolation(
  model: EntityModel,
  failure: DriverFailure,
  cause: unknown,
): StoreError {
  const fields = failure.kind === "unique" ? uniqueFields(model, failure) : [];
  const what = fields.length === 0 ? "these values" : `this ${fields.join(" and ")}`;
  return new StoreError("UNIQUE_VIOLATION", {
    message: `A ${model.name} with ${what} already exists.`,
    cause,
  });
}

/** Errors thrown by application hooks: they reach the caller as they are, never as DATABASE_ERROR. */
const hookErrors = new WeakSet<Error>();

/** Marks what a hook threw so `databaseError` lets it through; non-errors are wrapped first. */
export function hookError(thrown: unknown): Error {
  const error = thrown instanceof Error ? thrown : new Error(String(thrown));
  hookErrors.add(error);
  return error;
}

/**
 * Wraps an unexpected (driver) error: `STORAGE_FULL` (507) when the disk or
 * the database has no room left (`SQLITE_FULL`, Postgres `53100`, ...),
 * otherwise a generic `DATABASE_ERROR` (500); the original stays as `cause`.
 */
export function databaseError(error: unknown): Error {
  if (error instanceof StoreError || error instanceof SchemaError) return error;
  if (error instanceof Error && hookErrors.has(error)) return error;
  if (isStorageFull(error)) return new StoreError("STORAGE_FULL", { cause: error });
  return new StoreError("DATABASE_ERROR", { cause: error });
}
