import { AuthError } from "./errors.js";

/** The longest address SMTP can carry (RFC 5321). */
const MAX_EMAIL_LENGTH = 254;
// Deliberately loose: one @, something on both sides, a dot in the domain,
// no whitespace and no control characters (SMTP carries none, and Postgres
// text cannot hold a NUL). Deliverability is proven by the code, not a regex.
const EMAIL_SHAPE = /^[^\s@\p{Cc}]+@[^\s@\p{Cc}]+\.[^\s@\p{Cc}]+$/u;

/**
 * Trims and lower-cases an email address, the form every table and lookup
 * uses. Throws 400 `MISSING_EMAIL` when absent or empty, `INVALID_EMAIL`
 * when it is not a string of an address's shape or is a reserved
 * `.invalid` address.
 */
export function normalizeEmail(value: unknown): string {
  if (value === undefined || value === null) throw new AuthError("MISSING_EMAIL");
  if (typeof value !== "string") throw new AuthError("INVALID_EMAIL");
  const email = value.trim().toLowerCase();
  if (email === "") throw new AuthError("MISSING_EMAIL");
  if (email.length > MAX_EMAIL_LENGTH || !EMAIL_SHAPE.test(email) || isReservedEmail(email)) {
    throw new AuthError("INVALID_EMAIL");
  }
  return email;
}

/**
 * True for addresses under the reserved `.invalid` top-level domain (RFC
 * 6761). They can never receive mail, and svc gives them to users whose
 * OAuth provider shares no verified address, so no sign-in flow may accept
 * one: whoever typed it could otherwise claim that user.
 */
export function isReservedEmail(email: string): boolean {
  return email.toLowerCase().replace(/\.+$/, "").endsWith(".invalid");
}

const E164 = /^\+[1-9]\d{6,14}$/;

/**
 * A phone number in E.164 form (`+14155550100`); spaces, dashes, dots and
 * parentheses are dropped first. Throws `MISSING_PHONE` / `INVALID_PHONE`.
 */
export function normalizePhone(value: unknown): string {
  if (value === undefined || value === null || value === "") throw new AuthError("MISSING_PHONE");
  if (typeof value !== "string") throw new AuthError("INVALID_PHONE");
  const phone = value.replace(/[\s().-]/g, "");
  if (!E164.test(phone)) throw new AuthError("INVALID_PHONE");
  return phone;
}

/** A code from a request body: a string of 6 digits after trimming, else `MISSING_CODE` / `INVALID_CODE`. */
export function readCode(value: unknown, length = 6): string {
  if (value === undefined || value === null || value === "") throw new AuthError("MISSING_CODE");
  if (typeof value !== "string" && typeof value !== "number") throw new AuthError("INVALID_CODE");
  const code = String(value).trim();
  if (code === "") throw new AuthError("MISSING_CODE");
  if (code.length > 512) throw new AuthError("INVALID_CODE");
  return length > 0 && typeof value === "number" ? code.padStart(length, "0") : code;
}
