import { ConfigError } from "@svc/schema";
import { z } from "zod";
import type { CookieSettings } from "./cookie-settings.js";
import { DEFAULT_SESSION_LIFETIME_SECS } from "./create-auth.js";
import type { Env } from "./delivery/env-values.js";
import { type JWTConfig, parseJWTConfig } from "./jwt/jwt-config.js";
import { parseUpstreamJWTConfig, type UpstreamJWTConfig } from "./jwt/upstream-jwt.js";
import {
  type CaptchaVerifier,
  type EmailSettings,
  parseCaptchaConfig,
  parseEmailConfig,
  parseSmsConfig,
  type SmsTransport,
} from "./outbound.js";

/** auth-core's configuration, read from the environment by `parseAuthConfig`. */
export interface AuthConfig {
  /** `SVC_SESSION_DB`: the SQLite file for auth tables on the embedded database; in memory when unset. */
  readonly sessionDbPath: string | undefined;
  /** `SVC_SESSION_LIFETIME_SECS` (svc's addition): default 30 days. */
  readonly sessionLifetimeSecs: number;
  /** `SVC_AUTH_SECRET` (svc's addition): keys code HMACs; the server falls back to the admin token. */
  readonly secret: string | undefined;
  readonly cookie: CookieSettings;
  /** `SVC_RATE_LIMIT`: false only for `off`. The per-email cooldown and attempt cap always apply. */
  readonly rateLimit: boolean;
  readonly email: EmailSettings;
  readonly sms: SmsTransport | undefined;
  readonly captcha: CaptchaVerifier | undefined;
  /** `SVC_JWT_SECRET`, `SVC_JWT_ISSUER`, `SVC_JWT_LIFETIME_SECS`. */
  readonly jwt: JWTConfig;
  /** svc's upstream-JWT plugin (`SVC_JWT_UPSTREAM_*`); off when undefined. */
  readonly upstreamJWT: UpstreamJWTConfig | undefined;
  /** Settings that are valid but probably not what the operator meant; print them at boot. */
  readonly warnings: readonly string[];
}

const boolean = z
  .enum(["true", "false", "1", "0", "yes", "no"])
  .transform((value) => value === "true" || value === "1" || value === "yes");

function read<T>(env: Env, name: string, schema: z.ZodType<T>): T | undefined {
  const raw = env[name];
  if (raw === undefined || raw === "") return undefined;
  const result = schema.safeParse(raw);
  if (!result.success) throw new ConfigError(name, result.error.issues[0]?.message ?? "is invalid");
  return result.data;
}

/**
 * Parses auth-core's variables. Throws `ConfigError` naming the first
 * invalid variable. `publicURL` decides the cookie's default `Secure`
 * (true for an https address, and outside dev mode).
 */
export function parseAuthConfig(
  env: Env,
  options: { devMode: boolean; publicURL?: string | undefined; fetch?: typeof fetch },
): AuthConfig {
  const sameSite = read(
    env,
    "SVC_COOKIE_SAME_SITE",
    z.enum(["lax", "strict", "none", "Lax", "Strict", "None"]),
  );
  const secureDefault = options.publicURL?.startsWith("https:") ?? !options.devMode;
  const secure = read(env, "SVC_COOKIE_SECURE", boolean) ?? secureDefault;
  const cookieSameSite = (sameSite?.toLowerCase() ?? "lax") as CookieSettings["sameSite"];
  if (cookieSameSite === "none" && !secure) {
    throw new ConfigError(
      "SVC_COOKIE_SECURE",
      "must be true when SVC_COOKIE_SAME_SITE is none (browsers drop the cookie otherwise)",
    );
  }
  const domain = read(
    env,
    "SVC_COOKIE_DOMAIN",
    z.string().regex(/^\.?[A-Za-z0-9.-]+$/, "must be a host name"),
  );
  const rateLimit = read(env, "SVC_RATE_LIMIT", z.enum(["on", "off"], "must be on or off"));
  const fetchOption = options.fetch === undefined ? {} : { fetch: options.fetch };
  const email = parseEmailConfig(env, { devMode: options.devMode, ...fetchOption });
  const jwt = parseJWTConfig(env);
  const warnings: string[] = [...jwt.warnings];
  if (email.transport === undefined && !options.devMode) {
    warnings.push(
      "no email transport (SVC_EMAIL_PROVIDER): magic codes, magic links and email verification answer 500 EMAIL_SEND_FAILED",
    );
  }
  const captchaProvider = (env.SVC_CAPTCHA_PROVIDER ?? "") !== "";
  const captchaSecret = (env.SVC_CAPTCHA_SECRET ?? "") !== "";
  if (captchaProvider !== captchaSecret) {
    warnings.push(
      `the CAPTCHA gate is off: ${captchaProvider ? "SVC_CAPTCHA_SECRET" : "SVC_CAPTCHA_PROVIDER"} is unset (it needs both)`,
    );
  }
  return {
    sessionDbPath: read(env, "SVC_SESSION_DB", z.string().min(1)),
    sessionLifetimeSecs:
      read(
        env,
        "SVC_SESSION_LIFETIME_SECS",
        z.coerce
          .number()
          .int()
          .min(60)
          .max(400 * 24 * 3600),
      ) ?? DEFAULT_SESSION_LIFETIME_SECS,
    secret: read(
      env,
      "SVC_AUTH_SECRET",
      z.string().min(32, "must be at least 32 characters (use 32 random bytes as hex)"),
    ),
    cookie: { sameSite: cookieSameSite, secure, ...(domain !== undefined && { domain }) },
    rateLimit: rateLimit !== "off",
    email,
    sms: parseSmsConfig(env),
    captcha: parseCaptchaConfig(env, fetchOption),
    jwt,
    upstreamJWT: parseUpstreamJWTConfig(env),
    warnings,
  };
}
