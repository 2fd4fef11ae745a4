import { ConfigError } from "@svc/schema";
import { type Env, hasControlCharacter, readEnv } from "../delivery/env-values.js";

/** The shortest `SVC_JWT_SECRET` accepted, in characters (256 bits of hex or base64 text). */
export const MIN_JWT_SECRET_LENGTH = 32;

/** `SVC_JWT_LIFETIME_SECS` when unset: one hour. */
export const DEFAULT_JWT_LIFETIME_SECS = 3600;

/** The range `SVC_JWT_LIFETIME_SECS` accepts: one minute to 30 days. */
export const JWT_LIFETIME_RANGE_SECS = { min: 60, max: 86_400 * 30 } as const;

const MAX_ISSUER_LENGTH = 256;

/** JWT exchange settings as `parseJWTConfig` read them. */
export interface JWTConfig {
  /** `SVC_JWT_SECRET`, the HMAC key; undefined (JWT exchange off) when unset or empty. */
  readonly secret: string | undefined;
  /** `SVC_JWT_ISSUER`, minted as `iss` and required on verify; undefined when unset. */
  readonly issuer: string | undefined;
  /** `SVC_JWT_LIFETIME_SECS`, default 3600. */
  readonly lifetimeSecs: number;
  /** Lines for the server to print at boot; a half-configured setup is reported here, not refused. */
  readonly warnings: readonly string[];
}

/**
 * Reads the JWT exchange settings:
 *
 * - `SVC_JWT_SECRET`: when set, at least 32 characters; never echoed.
 * - `SVC_JWT_ISSUER`: one line of at most 256 characters.
 * - `SVC_JWT_LIFETIME_SECS`: an integer from 60 to 2592000 (30 days), default 3600.
 *
 * Empty values count as unset. A bad value throws a `ConfigError` naming its
 * variable. A secret without an issuer does not stop the boot: the
 * specification has every JWT refused with `JWT_MISCONFIGURED` at request
 * time instead, and `warnings` says so for the server to print. An issuer
 * without a secret is harmless (JWT exchange is off) and also warned about.
 *
 * @example
 * const jwt = parseJWTConfig(process.env);
 * for (const line of jwt.warnings) console.warn(line);
 */
export function parseJWTConfig(env: Env): JWTConfig {
  const secret = readEnv(env, "SVC_JWT_SECRET");
  if (secret !== undefined && secret.length < MIN_JWT_SECRET_LENGTH) {
    throw new ConfigError(
      "SVC_JWT_SECRET",
      `must be at least ${MIN_JWT_SECRET_LENGTH} characters long`,
    );
  }
  const issuer = readEnv(env, "SVC_JWT_ISSUER");
  if (issuer !== undefined && (hasControlCharacter(issuer) || issuer.length > MAX_ISSUER_LENGTH)) {
    throw new ConfigError(
      "SVC_JWT_ISSUER",
      `must be one line of at most ${MAX_ISSUER_LENGTH} characters`,
    );
  }
  const lifetimeSecs = parseLifetime(readEnv(env, "SVC_JWT_LIFETIME_SECS"));

  const warnings: string[] = [];
  if (secret !== undefined && issuer === undefined) {
    warnings.push(
      "SVC_JWT_SECRET is set but SVC_JWT_ISSUER is not: every JWT is refused with JWT_MISCONFIGURED and POST /api/auth/jwt fails until SVC_JWT_ISSUER is set.",
    );
  }
  if (secret === undefined && issuer !== undefined) {
    warnings.push("SVC_JWT_ISSUER is set but SVC_JWT_SECRET is not: JWT exchange is off.");
  }
  return { secret, issuer, lifetimeSecs, warnings };
}

function parseLifetime(value: string | undefined): number {
  if (value === undefined) return DEFAULT_JWT_LIFETIME_SECS;
  const { min, max } = JWT_LIFETIME_RANGE_SECS;
  const seconds = /^\d{1,10}$/.test(value) ? Number(value) : Number.NaN;
  if (!(seconds >= min && seconds <= max)) {
    throw new ConfigError(
      "SVC_JWT_LIFETIME_SECS",
      `must be a whole number of seconds from ${min} to ${max}`,
    );
  }
  return seconds;
}
