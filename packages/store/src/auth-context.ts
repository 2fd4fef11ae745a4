/**
 * Who is asking. Every store access carries one; the HTTP layer builds it
 * from the bearer token, functions receive it as `ctx.auth`.
 */
export interface AuthContext {
  /** The signed-in user, or null for an anonymous caller or the bare admin token. */
  readonly userId: string | null;
  /** The active organization, when the caller selected one. */
  readonly tenantId: string | null;
  readonly roles: readonly string[];
  /** The admin token: bypasses access rules. */
  readonly isAdmin: boolean;
  /** A guest session: a user id without a verified identity. */
  readonly isGuest: boolean;
}

/** The caller that presented no credentials. */
export const anonymousAuth: AuthContext = Object.freeze({
  userId: null,
  tenantId: null,
  roles: Object.freeze([]) as readonly string[],
  isAdmin: false,
  isGuest: false,
});

/** The admin token's caller. */
export const adminAuth: AuthContext = Object.freeze({ ...anonymousAuth, isAdmin: true });

/** Builds an auth context, defaulting every field to the anonymous caller's. */
export function createAuthContext(fields: Partial<AuthContext> = {}): AuthContext {
  return Object.freeze({ ...anonymousAuth, ...fields });
}
