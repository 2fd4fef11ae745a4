import { createHmac, timingSafeEqual } from "node:crypto";

/** How far (seconds, either side of the clock) a signed timestamp may be: the processor's 300. */
export const SIGNATURE_TOLERANCE_SECS = 300;

/** Longest header accepted, and most `v1` signatures compared: bounds the work per request. */
const MAX_HEADER_LENGTH = 4096;
const MAX_SIGNATURES = 16;

const HEX_SHA256 = /^[0-9a-f]{64}$/i;
const TIMESTAMP = /^\d{1,15}$/;

/** The parts of a `Stripe-Signature` header that matter: the timestamp and the `v1` signatures. */
interface SignatureHeader {
  /** `t` as sent: the signed content starts with exactly these digits. */
  readonly timestampText: string;
  readonly timestamp: number;
  readonly signatures: readonly Buffer[];
}

/**
 * Parses `t=<unix>,v1=<hex>[,v1=<hex>...]`. Other schemes (`v0`, unknown
 * ones) are ignored; a missing or repeated `t`, or no well-formed `v1`, is
 * a garbled header (null).
 */
function parseHeader(header: string): SignatureHeader | null {
  if (header.length > MAX_HEADER_LENGTH) return null;
  let timestampText: string | undefined;
  const signatures: Buffer[] = [];
  for (const item of header.split(",")) {
    const separator = item.indexOf("=");
    if (separator < 0) continue;
    const key = item.slice(0, separator).trim();
    const value = item.slice(separator + 1).trim();
    if (key === "t") {
      if (timestampText !== undefined || !TIMESTAMP.test(value)) return null;
      timestampText = value;
    } else if (key === "v1" && HEX_SHA256.test(value) && signatures.length < MAX_SIGNATURES) {
      signatures.push(Buffer.from(value, "hex"));
    }
  }
  if (timestampText === undefined || signatures.length === 0) return null;
  return { timestampText, timestamp: Number(timestampText), signatures };
}

/** Options of `verifyWebhookSignature`. */
export interface VerifySignatureInput {
  /** The request body exactly as received. */
  readonly payload: Uint8Array;
  /** The `Stripe-Signature` header, undefined when absent. */
  readonly header: string | undefined;
  readonly secret: string;
  /** The current time in unix seconds. */
  readonly nowSecs: number;
  /** Default 300 seconds. */
  readonly toleranceSecs?: number;
}

/**
 * Checks a processor webhook signature: HMAC-SHA256 under `secret` of
 * `${t}.${payload}` (the raw bytes) must equal one of the header's `v1`
 * values (each compared in constant time), and `t` must be within the
 * tolerance of `nowSecs` in either direction. Returns whether it holds;
 * there is no way to skip any part of the check.
 */
export function verifyWebhookSignature(input: VerifySignatureInput): boolean {
  if (input.header === undefined) return false;
  const parsed = parseHeader(input.header);
  if (parsed === null) return false;
  const tolerance = input.toleranceSecs ?? SIGNATURE_TOLERANCE_SECS;
  if (Math.abs(input.nowSecs - parsed.timestamp) > tolerance) return false;
  const expected = createHmac("sha256", input.secret)
    .update(`${parsed.timestampText}.`)
    .update(input.payload)
    .digest();
  let matched = false;
  // Every signature is compared, so the time taken does not say which one matched.
  for (const signature of parsed.signatures) {
    if (signature.length === expected.length && timingSafeEqual(signature, expected)) {
      matched = true;
    }
  }
  return matched;
}
