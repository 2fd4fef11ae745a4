const ID_BYTES = 20;
const BYTE_HEX = Array.from({ length: 256 }, (_, byte) => byte.toString(16).padStart(2, "0"));
const ID_PATTERN = /^[0-9a-f]{40}$/;

/**
 * A new record id made on the client: 160 bits from
 * `crypto.getRandomValues` as 40 lowercase hex characters, the shape the
 * server makes and accepts, so an insert can carry its own id (no
 * temporary ids for optimistic writes).
 *
 * @example
 * const id = generateId();
 * await client.entities("List").insert({ id, title: "Home" });
 */
export function generateId(): string {
  const bytes = new Uint8Array(ID_BYTES);
  globalThis.crypto.getRandomValues(bytes);
  let out = "";
  for (const byte of bytes) out += BYTE_HEX[byte];
  return out;
}

/** True when `value` has the shape of a record id (40 lowercase hex characters). */
export function isValidId(value: unknown): value is string {
  return typeof value === "string" && ID_PATTERN.test(value);
}
