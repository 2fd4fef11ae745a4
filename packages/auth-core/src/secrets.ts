import {
  createHash,
  createHmac,
  hkdfSync,
  randomBytes,
  randomInt,
  timingSafeEqual,
} from "node:crypto";

/**
 * Derives a purpose-bound 32-byte key from the deployment's secret with
 * HKDF-SHA256, so one secret (`SVC_AUTH_SECRET`, or the admin token when
 * that is unset) can key every HMAC without two purposes sharing a key.
 */
export function deriveKey(secret: string, purpose: string): Buffer {
  return Buffer.from(hkdfSync("sha256", secret, "svc-auth", purpose, 32));
}

/** HMAC-SHA256 of `parts` (joined unambiguously) under `key`, as hex. */
export function hmacHex(key: Buffer, ...parts: readonly string[]): string {
  const mac = createHmac("sha256", key);
  for (const part of parts) mac.update(`${part.length}:${part};`);
  return mac.digest("hex");
}

/** SHA-256 of a high-entropy token, as hex: what the tables keep instead of the token. */
export function sha256Hex(value: string): string {
  return createHash("sha256").update(value).digest("hex");
}

/** Compares two hex digests in constant time (unequal lengths are simply unequal). */
export function digestsEqual(a: string, b: string): boolean {
  const left = Buffer.from(a, "hex");
  const right = Buffer.from(b, "hex");
  return left.length === right.length && left.length > 0 && timingSafeEqual(left, right);
}

/** A new session token: `svc_` plus 256 random bits, base64url. */
export function newSessionToken(): string {
  return `svc_${randomBytes(32).toString("base64url")}`;
}

/** A new opaque one-time token (magic links): 256 random bits, base64url. */
export function newLinkToken(): string {
  return randomBytes(32).toString("base64url");
}

/** Six decimal digits, uniform over 000000..999999, from the CSPRNG. */
export function newSixDigitCode(): string {
  return String(randomInt(0, 1_000_000)).padStart(6, "0");
}

/** A random row id for auth-core's own tables. */
export function newRowId(): string {
  return randomBytes(16).toString("hex");
}
