import { type AuthContext, createMembershipLookup, type Store } from "@svc/store";
import type { Membership } from "./context.js";
import { FunctionsError } from "./errors.js";

/** `ctx.requireMember` for one caller. */
export type RequireMember = (
  orgId: string,
  options?: { readonly role?: readonly string[] },
) => Promise<Membership>;

/**
 * Prepares `ctx.requireMember` for a store once (the manifest's membership
 * model, `auth.org`, default `OrgMember {orgId, userId, role}`), and returns
 * the per-call builder. The check reads
 * through the store's system reader (inside the mutation's transaction when
 * there is one), so an application need not open its OrgMember policy.
 */
export function membershipCheck(store: Store): (auth: AuthContext) => RequireMember {
  const memberships = createMembershipLookup(store);
  return (auth) =>
    async (orgId, options = {}) => {
      if (auth.isAdmin) return { orgId, userId: auth.userId, role: null };
      if (!memberships.available) throw new FunctionsError("MEMBERSHIP_UNAVAILABLE");
      if (typeof orgId !== "string" || orgId === "" || auth.userId === null || auth.isGuest) {
        throw new FunctionsError("NOT_A_MEMBER");
      }
      const held = await memberships.rolesOf(orgId, auth.userId);
      if (held === null) throw new FunctionsError("NOT_A_MEMBER");
      const wanted = options.role;
      const role = wanted === undefined ? (held[0] ?? null) : held.find((r) => wanted.includes(r));
      if (role === undefined) throw new FunctionsError("NOT_A_MEMBER");
      return { orgId, userId: auth.userId, role };
    };
}
