import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";

const IV_BYTES = 12;
const TAG_BYTES = 16;

/**
 * Encrypts `plaintext` with AES-256-GCM under `key` (32 bytes), bound to
 * `context` (the owner's user id, as additional data, so a sealed value
 * moved to another user's row does not open). Returns base64url of
 * `iv | ciphertext | tag`, a fresh random IV each time.
 *
 * @example
 * const sealed = sealSecret(deriveKey(secret, "totp secrets"), bytes, userId);
 */
export function sealSecret(key: Buffer, plaintext: Uint8Array, context: string): string {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv("aes-256-gcm", key, iv, { authTagLength: TAG_BYTES });
  cipher.setAAD(Buffer.from(context, "utf8"));
  const body = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  return Buffer.concat([iv, body, cipher.getAuthTag()]).toString("base64url");
}

/**
 * Opens what `sealSecret` sealed under the same key and context. Throws
 * (a local error, never shown to a client) when the value was altered,
 * belongs to another context or was sealed under another key, e.g. after
 * the deployment secret changed.
 */
export function openSecret(key: Buffer, sealed: string, context: string): Uint8Array {
  const bytes = Buffer.from(sealed, "base64url");
  if (bytes.length < IV_BYTES + TAG_BYTES)
    throw new Error("svc: a sealed TOTP secret is truncated");
  const iv = bytes.subarray(0, IV_BYTES);
  const tag = bytes.subarray(bytes.length - TAG_BYTES);
  const decipher = createDecipheriv("aes-256-gcm", key, iv, { authTagLength: TAG_BYTES });
  decipher.setAAD(Buffer.from(context, "utf8"));
  decipher.setAuthTag(tag);
  try {
    const body = bytes.subarray(IV_BYTES, bytes.length - TAG_BYTES);
    return new Uint8Array(Buffer.concat([decipher.update(body), decipher.final()]));
  } catch (cause) {
    throw new Error(
      "svc: a TOTP secret could not be decrypted (altered, or sealed under another SVC_AUTH_SECRET)",
      { cause },
    );
  }
}
