import { SchemaError } from "./errors.js";

const ID_PATTERN = /^[0-9a-f]{40}$/;
const ID_BYTES = 20;
const BYTE_HEX = Array.from({ length: 256 }, (_, byte) => byte.toString(16).padStart(2, "0"));

// Ids are made on every insert, and one call into the CSPRNG costs more than
// the rest of the id: draw 4 KiB at a time and hand out 20 bytes per id.
// Each byte is used once, so ids stay as unpredictable as single draws.
const pool = new Uint8Array(ID_BYTES * 205);
let poolOffset = pool.length;

/**
 * Makes a new record id: 160 bits from the platform CSPRNG as 40 lowercase
 * hex characters.
 *
 * @example
 * const id = generateId(); // "3f9c...", 40 characters
 */
export function generateId(): string {
  if (poolOffset + ID_BYTES > pool.length) {
    crypto.getRandomValues(pool);
    poolOffset = 0;
  }
  let out = "";
  for (let i = poolOffset; i < poolOffset + ID_BYTES; i += 1) out += BYTE_HEX[pool[i] ?? 0];
  poolOffset += ID_BYTES;
  return out;
}

/** True when `value` has the shape of a record id. */
export function isValidId(value: unknown): value is string {
  return typeof value === "string" && ID_PATTERN.test(value);
}

/**
 * Returns `value` when it is a well-formed record id, otherwise throws a
 * `SchemaError` with code `INVALID_ID` (a 400 on the wire).
 */
export function assertValidId(value: unknown): string {
  if (isValidId(value)) return value;
  throw new SchemaError("INVALID_ID");
}
