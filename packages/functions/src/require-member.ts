import type { AuthContext, Store } from "@svc/store";
import type { Membership } from "./context.js";
import { FunctionsError } from "./errors.js";

/** The entity memberships live in until auth-core brings organizations. */
export const MEMBERSHIP_ENTITY = "OrgMember";

/** `ctx.requireMember` for one caller. */
export type RequireMember = (
  orgId: string,
  options?: { readonly role?: readonly string[] },
) => Promise<Membership>;

/**
 * Prepares `ctx.requireMember` for a store once (whether the manifest has an
 * OrgMember entity), and returns the per-call builder. The check reads
 * through the store's system reader (inside the mutation's transaction when
 * there is one), so an application need not open its OrgMember policy.
 */
export function membershipCheck(store: Store): (auth: AuthContext) => RequireMember {
  const hasMemberships = store.manifest.entities.some(
    (candidate) => candidate.name === MEMBERSHIP_ENTITY,
  );
  return (auth) =>
    async (orgId, options = {}) => {
      if (auth.isAdmin) return { orgId, userId: auth.userId, role: null };
      if (!hasMemberships) {
        throw new FunctionsError("MEMBERSHIP_UNAVAILABLE");
      }
      if (typeof orgId !== "string" || orgId === "" || auth.userId === null || auth.isGuest) {
        throw new FunctionsError("NOT_A_MEMBER");
      }
      const page = await store.systemReader().query(MEMBERSHIP_ENTITY, {
        where: { orgId, userId: auth.userId },
        limit: 100,
      });
      const roles = options.role;
      const match = page.rows.find(
        (row) => roles === undefined || (typeof row.role === "string" && roles.includes(row.role)),
      );
      if (match === undefined) throw new FunctionsError("NOT_A_MEMBER");
      return {
        orgId,
        userId: auth.userId,
        role: typeof match.role === "string" ? match.role : null,
      };
    };
}
