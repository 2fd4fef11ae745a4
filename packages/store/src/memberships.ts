import { orgMembershipOf } from "@svc/schema";
import { StoreError } from "./errors.js";
import type { Page, Store } from "./types.js";

/** One lookup of organization memberships, shared by every part of svc that asks. */
export interface MembershipLookup {
  /** Whether the manifest declares the membership entity (`auth.org`, default `OrgMember`). */
  readonly available: boolean;
  /**
   * The roles `userId` holds in `orgId` (one per membership row; a row
   * without a role counts as membership with no role), or null when the
   * user is not a member. Reads past policies, inside the current
   * transaction when there is one.
   */
  rolesOf(orgId: string, userId: string): Promise<string[] | null>;
}

/** How many membership rows of one user in one organization are read at most. */
const MAX_ROWS = 100;

/**
 * Builds the membership lookup over a store, from the manifest's `auth.org`
 * (default `OrgMember {orgId, userId, role}`). `ctx.requireMember`,
 * organization selection and the caller's `auth.roles` all use it, so they
 * can never disagree.
 *
 * @example
 * const members = createMembershipLookup(store);
 * const roles = await members.rolesOf("org_1", "user_1"); // ["admin"] or null
 */
export function createMembershipLookup(store: Store): MembershipLookup {
  const config = orgMembershipOf(store.manifest);
  const available = store.manifest.entities.some((entity) => entity.name === config.entity);
  return {
    available,
    async rolesOf(orgId, userId) {
      if (!available || orgId === "" || userId === "") return null;
      let page: Page;
      try {
        page = await store.systemReader().query(config.entity, {
          where: { [config.orgField]: orgId, [config.userField]: userId },
          limit: MAX_ROWS,
        });
      } catch (error) {
        // An id that cannot be a member's (say, not 40 hex for an id field) belongs to no one.
        if (error instanceof StoreError && error.status === 400) return null;
        throw error;
      }
      if (page.rows.length === 0) return null;
      const roles = page.rows
        .map((row) => row[config.roleField])
        .filter((role): role is string => typeof role === "string" && role !== "");
      return [...new Set(roles)].sort();
    },
  };
}
