import { z } from "zod";

/**
 * How the caller proved who it is: the admin token, a `svc_` session (a real
 * or a guest one), an API key or a JWT. Null for a caller that presented
 * nothing.
 */
export const authViaSchema = z.enum(["admin", "session", "guest", "api-key", "jwt"]);

/** See `authViaSchema`. */
export type AuthVia = z.infer<typeof authViaSchema>;

/**
 * Who is asking: the one caller type every svc package shares. The HTTP layer
 * resolves it from the bearer token or session cookie; the store checks
 * policies against it; functions receive it as `ctx.auth`.
 */
export const authContextSchema = z
  .object({
    /** The signed-in (or guest) user, or null for an anonymous caller and the bare admin token. */
    userId: z.string().min(1).nullable(),
    /** The active organization, when the caller selected one. */
    tenantId: z.string().min(1).nullable(),
    /** What `auth.hasRole('x')` looks in; empty for API keys and guests. */
    roles: z.array(z.string()).readonly(),
    /**
     * The caller's active billing entitlements (the price ids of their active or trialing subscriptions), filled
     * by @svc/billing when it is configured; empty otherwise. What
     * `auth.hasEntitlement('x')` looks in.
     */
    entitlements: z.array(z.string()).readonly(),
    /** The admin token: bypasses access rules. */
    isAdmin: z.boolean(),
    /** A guest session: a user id without a verified identity. */
    isGuest: z.boolean(),
    /** How the caller authenticated; null for an anonymous caller. */
    via: authViaSchema.nullable(),
    /** The id of the session the caller presented (never the token); null otherwise. */
    sessionId: z.string().min(1).nullable(),
  })
  .readonly();

/** See `authContextSchema`. */
export type AuthContext = z.infer<typeof authContextSchema>;

/** The caller that presented no credentials. */
export const anonymousAuth: AuthContext = Object.freeze({
  userId: null,
  tenantId: null,
  roles: Object.freeze([]) as readonly string[],
  entitlements: Object.freeze([]) as readonly string[],
  isAdmin: false,
  isGuest: false,
  via: null,
  sessionId: null,
});

/** The admin token's caller: no roles and no entitlements (it bypasses policies anyway). */
export const adminAuth: AuthContext = Object.freeze({
  ...anonymousAuth,
  isAdmin: true,
  via: "admin",
});

/**
 * Builds a frozen auth context, defaulting every field to the anonymous
 * caller's (`roles` and `entitlements` empty).
 *
 * @example
 * const auth = createAuthContext({ userId: "u1", via: "session", sessionId: "s1" });
 * const paid = createAuthContext({ userId: "u1", entitlements: ["price_pro_monthly"] });
 */
export function createAuthContext(fields: Partial<AuthContext> = {}): AuthContext {
  return Object.freeze({ ...anonymousAuth, ...fields });
}

/** True for a signed-in user with a real (non-guest) session, the only caller that may manage credentials. */
export function isRealSession(auth: AuthContext): boolean {
  return auth.via === "session" && auth.userId !== null && !auth.isGuest;
}
