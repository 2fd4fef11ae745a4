import { type HookContext, hook } from "@svc/functions";

type Db = HookContext["db"];

/** Deletes every row of `entity` whose `field` is `value`, page by page. */
async function deleteWhere(db: Db, entity: string, field: string, value: string): Promise<void> {
  for (;;) {
    const page = await db.query(entity, { where: { [field]: value }, limit: 100 });
    for (const row of page.rows) await db.delete(entity, row.id);
    if (page.nextCursor === null) return;
  }
}

/**
 * Runs when an account is deleted (`DELETE /api/auth/account`), with admin
 * rights inside the deletion's transaction, so nothing of the user's is
 * orphaned: their profile, their replies and the invitations addressed to
 * them go; they leave every organization; an organization left without
 * members goes with its projects and invitations, and one left without an
 * owner gets its longest-standing member as owner. Projects they created in
 * organizations that live on stay there (they belong to the organization).
 */
export default hook({
  on: { delete: { entity: "User" } },
  handler: async (ctx, { row }) => {
    await deleteWhere(ctx.db, "Profile", "ownerId", row.id);
    await deleteWhere(ctx.db, "InvitationReply", "ownerId", row.id);
    if (typeof row.email === "string") await deleteWhere(ctx.db, "Invitation", "email", row.email);

    const memberships = await ctx.db.query("OrgMember", { where: { userId: row.id }, limit: 1000 });
    for (const membership of memberships.rows) {
      const orgId = membership.orgId as string;
      await ctx.db.delete("OrgMember", membership.id);
      const owners = await ctx.db.query("OrgMember", { where: { orgId, role: "owner" }, limit: 1 });
      if (owners.rows.length > 0) continue;
      const next = await ctx.db.query("OrgMember", {
        where: { orgId },
        orderBy: { field: "joinedAt", direction: "asc" },
        limit: 1,
      });
      const heir = next.rows[0];
      if (heir !== undefined) {
        await ctx.db.update("OrgMember", heir.id, { role: "owner" });
        continue;
      }
      await deleteWhere(ctx.db, "Project", "orgId", orgId);
      await deleteWhere(ctx.db, "Invitation", "orgId", orgId);
      await ctx.db.delete("Organization", orgId);
    }
  },
});
