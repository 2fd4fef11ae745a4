import { generateHOTP, verifyHOTP } from "@oslojs/otp";

/** RFC 6238 as authenticator apps expect it: SHA-1, 6 digits, 30-second steps. */
export const TOTP_PERIOD_SECS = 30;
export const TOTP_DIGITS = 6;
/** How many steps either side of the current one are accepted (clock drift, typing time). */
export const TOTP_WINDOW = 1;

const SIX_DIGITS = /^\d{6}$/;

/** The RFC 6238 time step (counter) at `ms` unix milliseconds. */
export function timeStepAt(ms: number): number {
  return Math.floor(ms / (TOTP_PERIOD_SECS * 1000));
}

/** The code an authenticator app shows for `key` at `ms`, from the injected clock. */
export function totpCodeAt(key: Uint8Array, ms: number): string {
  return generateHOTP(key, BigInt(timeStepAt(ms)), TOTP_DIGITS);
}

/** Whether `value` has the shape of a TOTP code (six digits). */
export function isTotpShaped(value: string): boolean {
  return SIX_DIGITS.test(value);
}

/**
 * The time step within `TOTP_WINDOW` of `now` whose code is `code`, or null.
 * Steps at or before `after` (the last accepted one) never match, so a code
 * is accepted once. When two steps match, the latest wins.
 *
 * @oslojs/otp's own TOTP checks read `Date.now()`; this uses its HOTP
 * primitives so the clock stays injectable.
 */
export function matchTotpStep(
  key: Uint8Array,
  code: string,
  options: { now: number; after?: number | null | undefined },
): number | null {
  if (!isTotpShaped(code)) return null;
  const current = timeStepAt(options.now);
  let matched: number | null = null;
  for (let step = current - TOTP_WINDOW; step <= current + TOTP_WINDOW; step++) {
    if (options.after !== undefined && options.after !== null && step <= options.after) continue;
    // Every step is checked, so the time taken does not say which one matched.
    if (verifyHOTP(key, BigInt(step), TOTP_DIGITS, code)) matched = step;
  }
  return matched;
}
