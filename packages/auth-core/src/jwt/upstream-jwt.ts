import { type AuthContext, ConfigError, createAuthContext } from "@svc/schema";
import { createRemoteJWKSet, customFetch, decodeJwt, jwtVerify } from "jose";
import { type Env, parseHttpURL, readEnv } from "../delivery/env-values.js";
import { isJWTShaped, MAX_JWT_LENGTH } from "./hs256.js";
import { JWTError } from "./jwt-errors.js";

/** The signature algorithms accepted from an upstream issuer; never HMAC, never `none`. */
export const upstreamJWTAlgorithms = ["RS256", "ES256"] as const;

/** The most clock skew tolerated on an upstream token's `exp` and `nbf`, in seconds. */
export const MAX_UPSTREAM_CLOCK_TOLERANCE_SECS = 5;

/** The upstream issuer as `parseUpstreamJWTConfig` read it from the environment. */
export interface UpstreamJWTConfig {
  /** `SVC_JWT_UPSTREAM_ISSUER`: the `iss` its tokens carry. */
  readonly issuer: string;
  /** `SVC_JWT_UPSTREAM_AUDIENCE`: the `aud` they must carry for svc. */
  readonly audience: string;
  /** `SVC_JWT_UPSTREAM_JWKS_URL`: where its public keys are published. */
  readonly jwksURL: URL;
}

/** Options of `createUpstreamJWTVerifier`. */
export interface UpstreamJWTOptions extends UpstreamJWTConfig {
  /** The fetch that loads the key set; default the global one. */
  readonly fetch?: typeof fetch | undefined;
  /** The clock, in milliseconds since the epoch; default `Date.now`. */
  readonly now?: (() => number) | undefined;
  /** Clock skew tolerated on `exp` and `nbf`, 0 to 5 seconds; default 5. */
  readonly clockToleranceSecs?: number | undefined;
}

/** Verifies tokens of one upstream issuer; see `createUpstreamJWTVerifier`. */
export interface UpstreamJWTVerifier {
  /** The issuer this verifier accepts. */
  readonly issuer: string;
  /**
   * The caller a token of the upstream issuer stands for: `sub` as `userId`,
   * the `roles` claim when it is an array of strings (else no roles), no
   * organization, `via: "jwt"`. Any failure, an unreachable key set
   * included, rejects with `JWTError` `INVALID_JWT`, its `cause` the jose
   * error.
   */
  verify(token: string): Promise<AuthContext>;
}

/** A bearer resolver for upstream tokens: null for tokens it does not claim. */
export type UpstreamBearerResolver = (token: string) => Promise<AuthContext | null>;

const variables = {
  issuer: "SVC_JWT_UPSTREAM_ISSUER",
  audience: "SVC_JWT_UPSTREAM_AUDIENCE",
  jwksURL: "SVC_JWT_UPSTREAM_JWKS_URL",
} as const;

const LOOPBACK_HOSTS = new Set(["localhost", "127.0.0.1", "[::1]"]);

/**
 * Reads the upstream JWT plugin's settings: `SVC_JWT_UPSTREAM_ISSUER`,
 * `SVC_JWT_UPSTREAM_AUDIENCE` and `SVC_JWT_UPSTREAM_JWKS_URL`, all three or
 * none (undefined: the plugin is off). A partial set throws a `ConfigError`
 * naming the first missing one, in that order. The key set URL must be
 * https://; http:// is allowed only for localhost, 127.0.0.1 and [::1].
 * Empty values count as unset.
 *
 * @example
 * const upstream = parseUpstreamJWTConfig(process.env);
 * const verifier = upstream && createUpstreamJWTVerifier(upstream);
 */
export function parseUpstreamJWTConfig(env: Env): UpstreamJWTConfig | undefined {
  const issuer = readEnv(env, variables.issuer);
  const audience = readEnv(env, variables.audience);
  const jwksURL = readEnv(env, variables.jwksURL);
  if (issuer === undefined && audience === undefined && jwksURL === undefined) return undefined;
  const all = Object.values(variables).join(", ");
  const missing = (name: string): ConfigError =>
    new ConfigError(name, `must be set too: the upstream JWT plugin needs all of ${all}, or none`);
  if (issuer === undefined) throw missing(variables.issuer);
  if (audience === undefined) throw missing(variables.audience);
  if (jwksURL === undefined) throw missing(variables.jwksURL);

  const url = parseHttpURL(variables.jwksURL, jwksURL);
  if (url.protocol !== "https:" && !LOOPBACK_HOSTS.has(url.hostname)) {
    throw new ConfigError(
      variables.jwksURL,
      "must be an https:// URL (http:// only for localhost or 127.0.0.1)",
    );
  }
  return { issuer, audience, jwksURL: url };
}

/**
 * Accepts another issuer's tokens (the specification's upstream JWT plugin,
 * which issues none): RS256 or ES256 signatures checked against the issuer's
 * published key set, which jose fetches on first use and caches (a token
 * with an unknown `kid` refetches it at most every 30 seconds). `iss` and
 * `aud` must match, `exp` and `sub` must be present, and `exp`/`nbf` are
 * checked against the injected clock with at most 5 seconds of tolerance.
 *
 * @example
 * const verifier = createUpstreamJWTVerifier({
 *   issuer: "https://login.example.com/",
 *   audience: "svc",
 *   jwksURL: new URL("https://login.example.com/.well-known/jwks.json"),
 * });
 * const auth = await verifier.verify(token);
 */
export function createUpstreamJWTVerifier(options: UpstreamJWTOptions): UpstreamJWTVerifier {
  const clockTolerance = options.clockToleranceSecs ?? MAX_UPSTREAM_CLOCK_TOLERANCE_SECS;
  if (!(clockTolerance >= 0 && clockTolerance <= MAX_UPSTREAM_CLOCK_TOLERANCE_SECS)) {
    throw new RangeError(
      `clockToleranceSecs must be from 0 to ${MAX_UPSTREAM_CLOCK_TOLERANCE_SECS} seconds.`,
    );
  }
  const now = options.now ?? Date.now;
  const keys = createRemoteJWKSet(
    options.jwksURL,
    options.fetch === undefined ? {} : { [customFetch]: options.fetch },
  );
  const { issuer, audience } = options;

  return {
    issuer,
    async verify(token) {
      if (token.length > MAX_JWT_LENGTH) throw new JWTError("INVALID_JWT", { cause: "too-long" });
      let payload: Record<string, unknown>;
      try {
        ({ payload } = await jwtVerify(token, keys, {
          algorithms: [...upstreamJWTAlgorithms],
          issuer,
          audience,
          clockTolerance,
          currentDate: new Date(now()),
          requiredClaims: ["exp", "sub"],
        }));
      } catch (error) {
        throw new JWTError("INVALID_JWT", { cause: error });
      }
      const { sub, roles } = payload;
      if (typeof sub !== "string" || sub === "") {
        throw new JWTError("INVALID_JWT", { cause: "claims" });
      }
      const isRoleList =
        Array.isArray(roles) && roles.every((role): role is string => typeof role === "string");
      return createAuthContext({
        userId: sub,
        tenantId: null,
        roles: Object.freeze(isRoleList ? [...roles] : []),
        via: "jwt",
      });
    },
  };
}

/**
 * The bearer resolver for upstream tokens, to run before svc's own HS256
 * resolver. It claims a JWT-shaped token only when its `iss`, read without
 * trusting it (just to route), is the upstream issuer, and then verifies it
 * or rejects (never falls through); any other token resolves to null so the
 * next resolver takes it. Given svc's own issuer (`SVC_JWT_ISSUER`), it
 * throws a `ConfigError` when the two are equal, since `iss` could then no
 * longer tell the verifiers apart.
 *
 * @example
 * const resolveUpstream = upstreamResolver(verifier, process.env.SVC_JWT_ISSUER);
 * const auth = (await resolveUpstream(token)) ?? jwtService.resolver()(token);
 */
export function upstreamResolver(
  verifier: UpstreamJWTVerifier,
  ownIssuer?: string,
): UpstreamBearerResolver {
  if (ownIssuer !== undefined && ownIssuer === verifier.issuer) {
    throw new ConfigError(
      variables.issuer,
      "must differ from SVC_JWT_ISSUER: the issuer decides which verifier checks a token",
    );
  }
  return async (token) =>
    isJWTShaped(token) && readUnverifiedIssuer(token) === verifier.issuer
      ? verifier.verify(token)
      : null;
}

// Routing only: the claim is read from an unauthenticated payload.
function readUnverifiedIssuer(token: string): string | undefined {
  if (token.length > MAX_JWT_LENGTH) return undefined;
  try {
    const { iss } = decodeJwt(token);
    return typeof iss === "string" ? iss : undefined;
  } catch {
    return undefined;
  }
}
