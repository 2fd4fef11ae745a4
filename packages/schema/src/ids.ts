import { SchemaError } from "./errors.js";

const ID_PATTERN = /^[0-9a-f]{40}$/;
const HEX = "0123456789abcdef";

/**
 * Makes a new record id: 160 bits from the platform CSPRNG as 40 lowercase
 * hex characters.
 *
 * @example
 * const id = generateId(); // "3f9c...", 40 characters
 */
export function generateId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(20));
  let out = "";
  for (const byte of bytes) out += HEX.charAt(byte >> 4) + HEX.charAt(byte & 15);
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
