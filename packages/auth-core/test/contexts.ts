import type { AuthContext } from "@svc/schema";

/**
 * What a signed-in user with no roles, tenant or entitlements resolves to,
 * spelled out field by field so a changed default shows up in the tests.
 */
export function plainUserContext(
  userId: string,
  via: AuthContext["via"],
  sessionId: string | null,
): AuthContext {
  return {
    userId,
    tenantId: null,
    roles: [],
    entitlements: [],
    isAdmin: false,
    isGuest: false,
    via,
    sessionId,
  };
}
