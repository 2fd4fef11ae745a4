import type { Billing } from "@svc/billing";
import type { AuthContext } from "@svc/schema";
import type { CallerResolver } from "@svc/schema/http";

/**
 * Adds the caller's billing entitlements (the price ids of their active
 * subscriptions) to a resolved caller, so policies can use
 * `auth.hasEntitlement(...)` and functions `ctx.auth.entitlements`.
 * Guests, the admin token and anonymous callers have none.
 */
export async function withEntitlements(
  billing: Pick<Billing, "entitlementIds">,
  caller: AuthContext | null,
): Promise<AuthContext | null> {
  if (caller === null || caller.userId === null || caller.isAdmin || caller.isGuest) return caller;
  const entitlements = await billing.entitlementIds(caller.userId);
  return entitlements.length === 0 ? caller : { ...caller, entitlements };
}

/** A bearer resolver whose callers carry their entitlements. */
export function entitledResolver(
  billing: Pick<Billing, "entitlementIds">,
  resolve: CallerResolver,
): CallerResolver {
  return async (token, request) => withEntitlements(billing, await resolve(token, request));
}
