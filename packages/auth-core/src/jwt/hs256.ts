import { createHmac, createSecretKey, type KeyObject, timingSafeEqual } from "node:crypto";
import { decodeBase64urlIgnorePadding, encodeBase64urlNoPadding } from "@oslojs/encoding";
import { z } from "zod";
import { JWTError } from "./jwt-errors.js";

/** The longest token `verifyJWT` looks at (8 KiB); a longer one is refused before any work. */
export const MAX_JWT_LENGTH = 8192;

/** How far in the future `iat` and `nbf` may lie, in seconds, to absorb clock skew between servers. */
export const MAX_CLOCK_SKEW_SECS = 60;

/**
 * The claims of an svc JWT (the specification's "JWT claims (HS256)"): the
 * user (`sub`), issue and expiry times in unix seconds, the issuer, the
 * active organization at mint time when there was one, and the roles at
 * mint time. Verification parses the payload with this schema from unknown;
 * claims beyond these are ignored.
 */
export const jwtClaimsSchema = z.object({
  sub: z.string().min(1),
  iat: z.int().nonnegative(),
  exp: z.int().nonnegative(),
  iss: z.string().min(1),
  tenant_id: z.string().min(1).optional(),
  roles: z.array(z.string()),
});

/** See `jwtClaimsSchema`. */
export type JWTClaims = z.infer<typeof jwtClaimsSchema>;

/**
 * What failed in `verifyJWT`, carried as the `INVALID_JWT` error's `cause`
 * for logs; the client only ever sees the one code.
 *
 * - `too-long`: more than `MAX_JWT_LENGTH` characters.
 * - `malformed`: not three non-empty base64url segments (no padding), or a
 *   header or payload that is not UTF-8 JSON.
 * - `signature`: the HMAC-SHA256 over `header.payload` does not match.
 * - `header`: `alg` is not `HS256`, `typ` is neither absent nor `JWT`, or
 *   the header is not an object or names `crit` extensions.
 * - `claims`: the payload does not fit `jwtClaimsSchema`, or `exp` is not after `iat`.
 * - `expired`: `exp` is now or earlier.
 * - `not-yet-valid`: `iat` or `nbf` more than `MAX_CLOCK_SKEW_SECS` ahead.
 * - `issuer`: `iss` is not the configured issuer.
 */
export type InvalidJWTReason =
  | "too-long"
  | "malformed"
  | "signature"
  | "header"
  | "claims"
  | "expired"
  | "not-yet-valid"
  | "issuer";

/** Options of `verifyJWT`. */
export interface VerifyJWTOptions {
  /** The HMAC key, from `createHS256Key`. */
  readonly key: KeyObject;
  /** The issuer `iss` must equal (`SVC_JWT_ISSUER`). */
  readonly issuer: string;
  /** The current time in unix seconds. */
  readonly now: number;
}

// The only header svc signs: {"alg":"HS256","typ":"JWT"}.
const ENCODED_HEADER = encodeBase64urlNoPadding(
  new TextEncoder().encode(JSON.stringify({ alg: "HS256", typ: "JWT" })),
);

const SIGNATURE_BYTES = 32;
const TOKEN_PATTERN = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;
const utf8 = new TextDecoder("utf-8", { fatal: true });

const headerSchema = z.object({
  alg: z.literal("HS256"),
  typ: z.literal("JWT").optional(),
  // RFC 7515 §4.1.11: an extension the verifier does not understand must fail it.
  crit: z.never().optional(),
});

const payloadSchema = jwtClaimsSchema.extend({ nbf: z.int().optional() });

/**
 * Makes the HMAC key for `signJWT` and `verifyJWT` from the secret text
 * (`SVC_JWT_SECRET` itself, as UTF-8 bytes). Create it once, at boot.
 *
 * @example
 * const key = createHS256Key(process.env.SVC_JWT_SECRET ?? "");
 */
export function createHS256Key(secret: string): KeyObject {
  if (secret === "") throw new RangeError("An HS256 secret must not be empty.");
  return createSecretKey(Buffer.from(secret, "utf8"));
}

/**
 * True when `token` has exactly three dot-separated segments (two dots),
 * empty ones included: the shape the bearer resolution order routes to a JWT
 * resolver, so an `alg: none` token with its empty signature is refused as a
 * JWT rather than tried as a session. API keys (`pk.key_<id>.<secret>`) have
 * this shape too, which is why they are resolved before JWTs.
 */
export function isJWTShaped(token: string): boolean {
  const first = token.indexOf(".");
  if (first < 0) return false;
  const second = token.indexOf(".", first + 1);
  return second >= 0 && token.indexOf(".", second + 1) < 0;
}

/**
 * Signs `claims` as a compact HS256 JWT with the header
 * `{"alg":"HS256","typ":"JWT"}`; `tenant_id` is left out when undefined.
 * Throws a `ZodError` for claims that do not fit `jwtClaimsSchema` and a
 * `RangeError` for a token `verifyJWT` would refuse as too long: both are
 * programming mistakes, not client errors.
 *
 * @example
 * const token = signJWT({ sub: "u1", iat: 1_700_000_000, exp: 1_700_003_600, iss: "svc", roles: [] }, key);
 */
export function signJWT(claims: JWTClaims, key: KeyObject): string {
  const { sub, iat, exp, iss, tenant_id, roles } = jwtClaimsSchema.parse(claims);
  const payload = { iss, sub, iat, exp, ...(tenant_id !== undefined && { tenant_id }), roles };
  const signingInput = `${ENCODED_HEADER}.${encodeBase64urlNoPadding(
    new TextEncoder().encode(JSON.stringify(payload)),
  )}`;
  const token = `${signingInput}.${encodeBase64urlNoPadding(hmac(signingInput, key))}`;
  if (token.length > MAX_JWT_LENGTH) {
    throw new RangeError(`The JWT would be longer than ${MAX_JWT_LENGTH} characters.`);
  }
  return token;
}

/**
 * Verifies an svc HS256 JWT and returns its claims, synchronously. Checks,
 * in order: length, shape (three strict base64url segments), the signature
 * (constant-time, over the received `header.payload` text), the header
 * (`alg` exactly `HS256`), the claims' types, `exp` strictly after `now`,
 * `iat` and `nbf` at most `MAX_CLOCK_SKEW_SECS` ahead of `now`, and `iss`.
 * Every failure throws `JWTError` `INVALID_JWT` with an `InvalidJWTReason`
 * as its `cause`.
 *
 * @example
 * const claims = verifyJWT(token, { key, issuer: "svc", now: Math.floor(Date.now() / 1000) });
 */
export function verifyJWT(token: string, options: VerifyJWTOptions): JWTClaims {
  if (token.length > MAX_JWT_LENGTH) throw invalid("too-long");
  if (!TOKEN_PATTERN.test(token)) throw invalid("malformed");
  const firstDot = token.indexOf(".");
  const lastDot = token.lastIndexOf(".");
  const signingInput = token.slice(0, lastDot);

  // The signature first: nothing the sender wrote is parsed before it is authenticated.
  const signature = decodeSegment(token.slice(lastDot + 1));
  const expected = hmac(signingInput, options.key);
  if (signature.length !== SIGNATURE_BYTES || !timingSafeEqual(signature, expected)) {
    throw invalid("signature");
  }
  if (!headerSchema.safeParse(parseSegment(token.slice(0, firstDot))).success) {
    throw invalid("header");
  }
  const parsed = payloadSchema.safeParse(parseSegment(token.slice(firstDot + 1, lastDot)));
  if (!parsed.success || parsed.data.exp <= parsed.data.iat) throw invalid("claims");
  const { sub, iat, exp, iss, tenant_id, roles, nbf } = parsed.data;

  if (exp <= options.now) throw invalid("expired");
  const latestStart = options.now + MAX_CLOCK_SKEW_SECS;
  if (iat > latestStart || (nbf !== undefined && nbf > latestStart)) {
    throw invalid("not-yet-valid");
  }
  if (iss !== options.issuer) throw invalid("issuer");
  return { sub, iat, exp, iss, ...(tenant_id !== undefined && { tenant_id }), roles };
}

function hmac(signingInput: string, key: KeyObject): Buffer {
  return createHmac("sha256", key).update(signingInput, "utf8").digest();
}

function invalid(reason: InvalidJWTReason): JWTError {
  return new JWTError("INVALID_JWT", { cause: reason });
}

// The pattern admits only the base64url alphabet; this refuses the rest:
// a length of 1 mod 4 and non-zero trailing bits (a second spelling of the same bytes).
function decodeSegment(segment: string): Uint8Array {
  try {
    return decodeBase64urlIgnorePadding(segment);
  } catch {
    throw invalid("malformed");
  }
}

function parseSegment(segment: string): unknown {
  try {
    return JSON.parse(utf8.decode(decodeSegment(segment)));
  } catch (error) {
    if (error instanceof JWTError) throw error;
    throw invalid("malformed");
  }
}
