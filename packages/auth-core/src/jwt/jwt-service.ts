import type { KeyObject } from "node:crypto";
import { type AuthContext, createAuthContext } from "@svc/schema";
import { createHS256Key, isJWTShaped, signJWT, verifyJWT } from "./hs256.js";
import { DEFAULT_JWT_LIFETIME_SECS } from "./jwt-config.js";
import { JWTError } from "./jwt-errors.js";

/** Options of `createJWTService`; `parseJWTConfig`'s result fits. */
export interface JWTServiceOptions {
  /** `SVC_JWT_SECRET`, used as the HMAC key; undefined or empty turns JWT exchange off. */
  readonly secret: string | undefined;
  /** `SVC_JWT_ISSUER`; with a secret but no issuer every JWT is refused (`JWT_MISCONFIGURED`). */
  readonly issuer: string | undefined;
  /** How long a minted JWT lives, in seconds; default 3600. */
  readonly lifetimeSecs?: number | undefined;
  /** The clock, in milliseconds since the epoch; default `Date.now`. */
  readonly now?: (() => number) | undefined;
}

/** Who a JWT is minted for: the session's user, active organization and roles, as of now. */
export interface MintJWTInput {
  readonly userId: string;
  /** The active organization; null or undefined leaves `tenant_id` out of the token. */
  readonly tenantId?: string | null | undefined;
  readonly roles: readonly string[];
}

/** The body of `POST /api/auth/jwt`: the token and its `exp`, in unix seconds. */
export interface MintedJWT {
  readonly token: string;
  readonly expires_at: number;
}

/** A bearer resolver: the caller for a token it claims, null to let the next resolver try. */
export type JWTBearerResolver = (token: string) => AuthContext | null;

/** svc's own HS256 JWT exchange; see `createJWTService`. */
export interface JWTService {
  /**
   * Mints a JWT whose claims are a snapshot of `input` now; `expires_at` is
   * `iat` plus the lifetime. Throws `JWT_NOT_CONFIGURED` when the secret is
   * unset, and `JWT_MISCONFIGURED` when the secret is set but the issuer is
   * not (a token that every verify would refuse is not handed out).
   */
  mint(input: MintJWTInput): MintedJWT;
  /** Whether `token` has three dot-separated segments (see `isJWTShaped` in hs256.ts). */
  isJWTShaped(token: string): boolean;
  /**
   * The caller a JWT stands for (`via: "jwt"`, not a guest, no session id).
   * Throws `JWT_MISCONFIGURED` for every token while the secret is set
   * without an issuer, and `INVALID_JWT` for any other failure, including a
   * call while the secret is unset.
   */
  verify(token: string): AuthContext;
  /**
   * The bearer resolver for step (3) of the resolution order: null when the
   * secret is unset or the token is not JWT-shaped, so the next resolver
   * runs; otherwise the verified caller or a thrown `JWTError`, never a fall
   * through. API keys (`pk.`) must be resolved before it: they are
   * JWT-shaped too.
   */
  resolver(): JWTBearerResolver;
}

/** How many verified tokens the service remembers. */
const VERIFIED_CAPACITY = 10_000;

/**
 * Creates svc's HS256 JWT exchange. The HMAC key is made once from the
 * secret; verification is synchronous and takes microseconds, so it can run
 * on every request.
 *
 * @example
 * const jwt = createJWTService(parseJWTConfig(process.env));
 * const { token, expires_at } = jwt.mint({ userId: "u1", tenantId: null, roles: ["admin"] });
 * const auth = jwt.verify(token); // { userId: "u1", via: "jwt", roles: ["admin"], ... }
 */
export function createJWTService(options: JWTServiceOptions): JWTService {
  const secret = options.secret === "" ? undefined : options.secret;
  const issuer = options.issuer === "" ? undefined : options.issuer;
  const lifetimeSecs = options.lifetimeSecs ?? DEFAULT_JWT_LIFETIME_SECS;
  if (!Number.isSafeInteger(lifetimeSecs) || lifetimeSecs <= 0) {
    throw new RangeError("lifetimeSecs must be a positive whole number of seconds.");
  }
  const now = options.now ?? Date.now;
  const key: KeyObject | undefined = secret === undefined ? undefined : createHS256Key(secret);
  const nowSecs = (): number => Math.floor(now() / 1000);

  // Verified tokens, newest last. A JWT cannot change or be revoked, so once
  // its signature, header and claims passed, only `exp` needs checking again:
  // a repeat costs a map lookup instead of an HMAC, two decodes and a parse.
  const verified = new Map<string, { auth: AuthContext; exp: number }>();

  const verify = (token: string): AuthContext => {
    if (key === undefined) throw new JWTError("INVALID_JWT", { cause: "not-configured" });
    if (issuer === undefined) throw new JWTError("JWT_MISCONFIGURED");
    const seconds = nowSecs();
    const known = verified.get(token);
    if (known !== undefined) {
      verified.delete(token);
      if (known.exp <= seconds) throw new JWTError("INVALID_JWT", { cause: "expired" });
      verified.set(token, known);
      return known.auth;
    }
    const claims = verifyJWT(token, { key, issuer, now: seconds });
    const auth = createAuthContext({
      userId: claims.sub,
      tenantId: claims.tenant_id ?? null,
      roles: Object.freeze([...claims.roles]),
      via: "jwt",
    });
    if (verified.size >= VERIFIED_CAPACITY) {
      const oldest = verified.keys().next();
      if (oldest.done !== true) verified.delete(oldest.value);
    }
    verified.set(token, { auth, exp: claims.exp });
    return auth;
  };

  return {
    mint(input) {
      if (key === undefined) throw new JWTError("JWT_NOT_CONFIGURED");
      if (issuer === undefined) throw new JWTError("JWT_MISCONFIGURED");
      const iat = nowSecs();
      const exp = iat + lifetimeSecs;
      const token = signJWT(
        {
          sub: input.userId,
          iat,
          exp,
          iss: issuer,
          ...(input.tenantId != null && { tenant_id: input.tenantId }),
          roles: [...input.roles],
        },
        key,
      );
      return { token, expires_at: exp };
    },
    isJWTShaped,
    verify,
    resolver() {
      return (token) => (key === undefined || !isJWTShaped(token) ? null : verify(token));
    },
  };
}
