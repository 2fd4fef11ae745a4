import { hook } from "@svc/functions";

/**
 * Runs when an account is deleted (`DELETE /api/auth/account`), with admin
 * rights inside the deletion's transaction: removes the user's profile and
 * memberships, and the organizations left without any member (with their
 * projects and invitations), so nothing of theirs is orphaned.
 */
export default hook({
  on: { delete: { entity: "User" } },
  handler: async (ctx, { row }) => {
    const profiles = await ctx.db.query("Profile", { where: { ownerId: row.id }, limit: 1000 });
    for (const profile of profiles.rows) await ctx.db.delete("Profile", profile.id);

    const memberships = await ctx.db.query("OrgMember", { where: { userId: row.id }, limit: 1000 });
    for (const membership of memberships.rows) {
      const orgId = membership.orgId as string;
      await ctx.db.delete("OrgMember", membership.id);
      const others = await ctx.db.query("OrgMember", { where: { orgId }, limit: 1 });
      if (others.rows.length > 0) continue;
      for (const entity of ["Project", "Invitation"]) {
        const rows = await ctx.db.query(entity, { where: { orgId }, limit: 1000 });
        for (const child of rows.rows) await ctx.db.delete(entity, child.id);
      }
      await ctx.db.delete("Organization", orgId);
    }
  },
});
