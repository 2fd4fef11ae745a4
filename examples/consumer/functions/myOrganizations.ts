import { query } from "@svc/functions";
import { requireUserId } from "./_caller.js";

/** The organizations the caller belongs to, with the caller's role in each. */
export default query({
  args: {},
  handler: async (ctx) => {
    const userId = requireUserId(ctx);
    const memberships = await ctx.db.query("OrgMember", {
      where: { userId },
      orderBy: { field: "joinedAt", direction: "asc" },
      limit: 200,
    });
    const organizations = [];
    for (const membership of memberships.rows) {
      const org = await ctx.db.get("Organization", membership.orgId as string);
      if (org !== null) {
        organizations.push({
          id: org.id,
          name: org.name as string,
          role: membership.role as string,
        });
      }
    }
    return { organizations, activeOrgId: ctx.auth.tenantId };
  },
});
