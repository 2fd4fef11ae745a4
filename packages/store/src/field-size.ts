import type { FieldDef } from "@svc/schema";
import { StoreError } from "./errors.js";

/** Default largest value of a string or json field: 64 KiB (of UTF-8; json: of its JSON text). */
export const DEFAULT_MAX_FIELD_BYTES = 64 * 1024;
/** Default largest row, counting its string and json values together: 1 MiB. */
export const DEFAULT_MAX_ROW_BYTES = 1024 * 1024;

/** The size bounds of a store's writes (see `CreateStoreOptions`). */
export interface SizeLimits {
  readonly maxFieldBytes: number;
  readonly maxRowBytes: number;
}

/** Checks a `createStore` size option; throws the local `INVALID_OPTION`. */
export function checkSizeOption(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value < 1) {
    throw new StoreError("INVALID_OPTION", {
      message: `createStore: ${name} must be a positive integer (bytes).`,
    });
  }
  return value;
}

/** The bound of one field's values in bytes; null for kinds whose values are small by nature. */
export function fieldBound(def: FieldDef, limits: SizeLimits): number | null {
  if (def.type === "string" || def.type === "json") return def.maxBytes ?? limits.maxFieldBytes;
  return null;
}

/**
 * Whether `text` is more than `max` bytes of UTF-8. Counting is skipped when
 * the length decides: a UTF-16 unit is 1 to 3 bytes of UTF-8 (a surrogate
 * pair, two units, is 4).
 */
export function exceedsBytes(text: string, max: number): boolean {
  if (text.length > max) return true;
  if (text.length * 3 <= max) return false;
  return Buffer.byteLength(text, "utf8") > max;
}

/** Whether the texts together are more than `max` bytes of UTF-8 (counted only when the lengths do not decide). */
export function totalExceedsBytes(texts: readonly string[], max: number): boolean {
  let units = 0;
  for (const text of texts) units += text.length;
  if (units > max) return true;
  if (units * 3 <= max) return false;
  let bytes = 0;
  for (const text of texts) bytes += Buffer.byteLength(text, "utf8");
  return bytes > max;
}

/** `FIELD_TOO_LARGE` for a field whose value is past its bound. */
export function fieldTooLarge(label: string, max: number): StoreError {
  return new StoreError("FIELD_TOO_LARGE", {
    message: `Field ${label} must be at most ${max} bytes.`,
  });
}

/** `ROW_TOO_LARGE` for a row whose string and json values together are past the bound. */
export function rowTooLarge(entity: string, max: number): StoreError {
  return new StoreError("ROW_TOO_LARGE", {
    message: `The string and json values of a ${entity} must be at most ${max} bytes together.`,
  });
}
